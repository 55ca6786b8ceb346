package table

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Benchmarks: 256 trajectories of up to 300 tokens each.
func benchRows() []Trajectory { return sampleTrajectories(256, 42) }

func BenchmarkWrite(b *testing.B) {
	rows := benchRows()
	for _, f := range formats {
		b.Run(f.String(), func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := Write(&buf, f, rows, testMeta); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "bytes")
		})
	}
}

func BenchmarkRead(b *testing.B) {
	rows := benchRows()
	dir := b.TempDir()
	for _, f := range formats {
		b.Run(f.String(), func(b *testing.B) {
			var buf bytes.Buffer
			if err := Write(&buf, f, rows, testMeta); err != nil {
				b.Fatal(err)
			}
			p := filepath.Join(dir, f.String())
			os.WriteFile(p, buf.Bytes(), 0o644)
			for b.Loop() {
				if _, _, err := ReadFiles[Trajectory](p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
