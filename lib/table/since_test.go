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
	rows := []sinceOld{{A: "x"}, {A: "y"}}
	for _, version := range []int{1, 2} {
		meta := Meta{Kind: "since_test", SchemaVersion: version}
		for _, f := range formats {
			path := writeOldFile(t, f, rows, meta)
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

// A row kind at version 3 whose nullable column d was added in version 2
// as a required column (as eval_metrics' misleading_exposure was), and
// the kind as version 2 wrote it.
type nullableNew struct {
	A string   `parquet:"a"`
	D *float64 `parquet:"d,optional" since:"2"`
}

type nullableOld struct {
	A string  `parquet:"a"`
	D float64 `parquet:"d"`
}

// TestReadNullableFromOlder: a nullable pointer column reads as NULL from
// a file of a version before it that lacks it, and as the value from a
// file that wrote it as a required column (0 included), in every format.
func TestReadNullableFromOlder(t *testing.T) {
	k := KindInfo{Name: "nullable_test", Version: 3, Type: reflect.TypeFor[nullableNew]()}
	cols, err := columnsOf(k.Type)
	if err != nil {
		t.Fatal(err)
	}
	f := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		version int
		rows    any
		want    []nullableNew
	}{
		{1, []sinceOld{{A: "x"}, {A: "y"}}, []nullableNew{{A: "x"}, {A: "y"}}},
		{2, []nullableOld{{A: "x", D: 0.25}, {A: "y"}}, []nullableNew{{A: "x", D: f(0.25)}, {A: "y", D: f(0)}}},
	} {
		meta := Meta{Kind: "nullable_test", SchemaVersion: c.version}
		for _, format := range formats {
			var path string
			switch rows := c.rows.(type) {
			case []sinceOld:
				path = writeOldFile(t, format, rows, meta)
			case []nullableOld:
				path = writeOldFile(t, format, rows, meta)
			}
			got, _, err := readOne[nullableNew](path, k, cols)
			if err != nil {
				t.Fatalf("%v, version %d: %v", format, c.version, err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%v, version %d (-want +got):\n%s", format, c.version, diff)
			}
		}
	}
}

// writeOldFile writes rows of an unregistered row struct in a format to a
// file in a temporary folder and returns its path.
func writeOldFile[T any](t *testing.T, f Format, rows []T, meta Meta) string {
	t.Helper()
	var b bytes.Buffer
	var err error
	if f == Parquet {
		err = writeParquet(&b, rows, meta)
	} else {
		var cols []column
		if cols, err = columnsOf(reflect.TypeFor[T]()); err == nil {
			err = writeArrow(&b, f == ArrowFile, rows, cols, meta)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
