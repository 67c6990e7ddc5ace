package solver

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// physicalMemory returns the bytes of physical memory, 0 if unknown.
func physicalMemory() int64 {
	var info syscall.Sysinfo_t
	if syscall.Sysinfo(&info) != nil {
		return 0
	}
	return int64(info.Totalram) * int64(info.Unit)
}

// memoryCap returns the bytes this process may still allocate before the
// operating system refuses (so that the Go runtime would abort the whole
// process): the room left under RLIMIT_AS (ulimit -v) and RLIMIT_DATA
// (ulimit -d), and under its cgroup's memory.max (v2), whichever is least,
// with the name of that limit; 0 when none is set. With soft, the
// system's MemAvailable counts too (memory the kernel could hand out
// without swapping), for the default budget.
func memoryCap(soft bool) (int64, string) {
	best, what := int64(0), ""
	consider := func(room int64, name string) {
		room = max(room, 1) // at or over the limit already: no room
		if best == 0 || room < best {
			best, what = room, name
		}
	}
	page := int64(os.Getpagesize())
	statm := readFields("/proc/self/statm") // size resident shared text lib data dt, in pages
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) == nil && lim.Cur != ^uint64(0) && len(statm) > 0 {
		consider(int64(lim.Cur)-statm[0]*page, "the address-space limit RLIMIT_AS (ulimit -v)")
	}
	if syscall.Getrlimit(syscall.RLIMIT_DATA, &lim) == nil && lim.Cur != ^uint64(0) && len(statm) > 5 {
		consider(int64(lim.Cur)-statm[5]*page, "the data-segment limit RLIMIT_DATA (ulimit -d)")
	}
	if dir := cgroupDir(); dir != "" {
		if max := readFields(dir + "/memory.max"); len(max) == 1 {
			if cur := readFields(dir + "/memory.current"); len(cur) == 1 {
				consider(max[0]-cur[0], "the cgroup's memory.max")
			}
		}
	}
	if soft {
		if b, err := os.ReadFile("/proc/meminfo"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemAvailable:" {
					if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
						consider(kb<<10, "the system's available memory (MemAvailable)")
					}
				}
			}
		}
	}
	return best, what
}

// readFields reads a file of whitespace-separated integers ("max" and
// unreadable files give none).
func readFields(path string) []int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []int64
	for _, f := range strings.Fields(string(b)) {
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// cgroupDir is this process's cgroup v2 directory, or "".
func cgroupDir() string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return "/sys/fs/cgroup" + strings.TrimSpace(rest)
		}
	}
	return ""
}
