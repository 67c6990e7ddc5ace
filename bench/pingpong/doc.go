// Package pingpong holds a machine probe, not a test of sompca: the round
// trip of a cache line between two CPUs, which bounds what the solver's
// team of goroutines pays for the lines its members share.
//
//	go test -run '^$' -bench PingPong ./bench/pingpong
package pingpong
