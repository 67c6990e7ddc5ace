//go:build !teamstats

package par

// teamStat times a team's tasks when the package is built with the
// teamstats tag (teamstat_on.go); otherwise its hooks are empty and
// compile to nothing.
type teamStat struct{}

func (*teamStat) init(int)          {}
func (*teamStat) begin(func(w int)) {}
func (*teamStat) callerDone()       {}
func (*teamStat) seen(int)          {}
func (*teamStat) done(int)          {}
func (*teamStat) end()              {}
func (*teamStat) report()           {}
