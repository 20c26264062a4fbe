package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat: Linux reports them in USER_HZ, 100 a second
// whatever the kernel's own tick.
const userHZ = 100

// cpuTime is the CPU time (user and system) the process pid has used so far, from /proc/PID/stat.
// The server's CPU per request still compares runs whose req/s the generator itself caps, as it does
// when both share the machine's cores.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("server CPU: %w", err)
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime and stime (the 14th and 15th fields) of a /proc/PID/stat line. The second
// field, the command in parentheses, may hold spaces and parentheses itself, so the fields are
// counted from the last ')'.
func parseStatCPU(line string) (time.Duration, error) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return 0, errors.New("server CPU: no command field in /proc/PID/stat")
	}
	fields := strings.Fields(line[end+1:]) // from the 3rd field, the state
	if len(fields) < 13 {
		return 0, fmt.Errorf("server CPU: %d fields after the command in /proc/PID/stat, want at least 13", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("server CPU: field %q of /proc/PID/stat is not a tick count", f)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
