package scaffold

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/pats-rl/pats/lib/table"
)

// itemsYAML is an items file of n task items over 7 task types, every
// tenth with an explicit id, the others numbered by ParseItems.
func itemsYAML(n int) []byte {
	var b bytes.Buffer
	b.WriteString("items:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - layer: task\n    task_type: t%d\n    text: Rule number %d says do thing %d.\n", i%7, i, i)
		if i%10 == 0 {
			fmt.Fprintf(&b, "    id: x-%d\n", i)
		}
	}
	return b.Bytes()
}

// BenchmarkParseItems is validate init --from's parse of a hand-written
// items file, by size: its time per item must not grow with the file
// (bench/profile.md has the figures before and after numbering items
// without a scan of the whole list per generated id).
func BenchmarkParseItems(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		src := itemsYAML(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				items, err := ParseItems(bytes.NewReader(src), "items.yaml", nil)
				if err != nil || len(items) != n {
					b.Fatalf("%d items, %v", len(items), err)
				}
			}
		})
	}
}

// BenchmarkInitSnapshot is the whole of validate init --from on 100,000
// items: parse, then the snapshot written (sorted, hashed, Parquet).
func BenchmarkInitSnapshot(b *testing.B) {
	src := itemsYAML(100000)
	out := filepath.Join(b.TempDir(), "snap.parquet")
	for b.Loop() {
		items, err := ParseItems(bytes.NewReader(src), "items.yaml", nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteSnapshot(out, Snapshot{Items: items}, table.Meta{}); err != nil {
			b.Fatal(err)
		}
	}
}
