package readback

import "testing"

// TestCRC32C: the table gives CRC-32C's check value on "123456789".
func TestCRC32C(t *testing.T) {
	if got := crc32c([]byte("123456789")); got != 0xe3069283 {
		t.Errorf("crc32c(123456789) = %#x, want 0xe3069283", got)
	}
	if got := crc32c(nil); got != 0 {
		t.Errorf("crc32c of nothing = %#x, want 0", got)
	}
}
