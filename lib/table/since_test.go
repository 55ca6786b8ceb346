package table

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A row kind at version 2 whose column b was added in version 2, and the
// same kind as version 1 wrote it.
type sinceNew struct {
	A string  `parquet:"a"`
	B []int32 `parquet:"b,list" since:"2"`
	C float64 `parquet:"c" since:"2"`
}

type sinceOld struct {
	A string `parquet:"a"`
}

// TestReadOlderVersion: a file of an older schema version that lacks the
// columns added since reads with those columns empty, in every format; a
// file that claims the new version and lacks them is refused.
func TestReadOlderVersion(t *testing.T) {
	k := KindInfo{Name: "since_test", Version: 2, Type: reflect.TypeFor[sinceNew]()}
	cols, err := columnsOf(k.Type)
	if err != nil {
		t.Fatal(err)
	}
	oldCols, err := columnsOf(reflect.TypeFor[sinceOld]())
	if err != nil {
		t.Fatal(err)
	}
	rows := []sinceOld{{A: "x"}, {A: "y"}}
	for _, version := range []int{1, 2} {
		meta := Meta{Kind: "since_test", SchemaVersion: version}
		for _, f := range formats {
			var b bytes.Buffer
			if f == Parquet {
				err = writeParquet(&b, rows, meta)
			} else {
				err = writeArrow(&b, f == ArrowFile, rows, oldCols, meta)
			}
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "old")
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			got, _, err := readOne[sinceNew](path, k, cols)
			if version == 2 {
				if err == nil || !strings.Contains(err.Error(), `no column "b"`) {
					t.Errorf("%v, version 2 without b: %v", f, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v, version 1: %v", f, err)
			}
			if diff := cmp.Diff([]sinceNew{{A: "x"}, {A: "y"}}, got); diff != "" {
				t.Errorf("%v (-want +got):\n%s", f, diff)
			}
		}
	}
}
