package cleanup

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRunOrderAndRemove(t *testing.T) {
	var got []string
	Add(func() { got = append(got, "first") })
	rm := Add(func() { got = append(got, "removed") })
	Add(func() { got = append(got, "last") })
	rm()
	rm()
	if Len() != 2 {
		t.Fatalf("Len %d, want 2", Len())
	}
	Run()
	Run()
	if diff := cmp.Diff([]string{"last", "first"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
