//go:build js

package relin

import "time"

// cpuTime is not available under GOOS=js: the benchmark reports wall time only.
func cpuTime() time.Duration { return -1 }
