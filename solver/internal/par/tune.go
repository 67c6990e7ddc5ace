package par

import "time"

// The team's thresholds, in one place; see each for what set it.

// teamSpin bounds how long an idle member of a team waits for the next
// task by spinning (polling an atomic counter) before it parks.
// A fit hands work to its team thousands of times a second, between
// short serial steps (the Krylov products of a mode update, each ~10-20
// us, alternate with Ritz steps of a few us); handing work to a parked
// goroutine costs a futex wake-up and a trip through the Go scheduler,
// tens of microseconds on a virtual machine, as much as the work. A
// spinning member takes a task within a fraction of a microsecond. The
// bound keeps a member from burning a core while the fit waits for
// longer (a read from a file, a progress callback): it then parks, and
// the next task pays one wake-up. See docs/DESIGN.md, "The reduction tree".
const teamSpin = 200 * time.Microsecond

// cancelPoll is how often Interruptible polls Options.Cancel.
const cancelPoll = 20 * time.Millisecond
