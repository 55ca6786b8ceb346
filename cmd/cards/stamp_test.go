package main

import "os"

// The tests that compare two runs' outputs byte for byte agree on the time
// every file records (pats.time; see table.Stamp): SOURCE_DATE_EPOCH fixes
// it, and PATS_HOST the host, for this process and the commands it starts.
func init() {
	os.Setenv("SOURCE_DATE_EPOCH", "1764547200")
	os.Setenv("PATS_HOST", "test-host")
}
