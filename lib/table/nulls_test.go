package table

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// A file from another tool whose reward column is nullable and holds a
// NULL is refused, not read as reward 0.
func TestNullInRequiredColumn(t *testing.T) {
	base := reflect.TypeOf(Trajectory{})
	fields := make([]reflect.StructField, base.NumField())
	for i := range fields {
		fields[i] = base.Field(i)
		if fields[i].Name == "Reward" {
			fields[i].Type = reflect.TypeOf((*float64)(nil))
			fields[i].Tag = `parquet:"reward,optional"`
		}
	}
	typ := reflect.StructOf(fields)
	write := func(reward *float64) string {
		rows := reflect.MakeSlice(reflect.SliceOf(typ), 2, 2)
		for i := 0; i < 2; i++ {
			r := rows.Index(i)
			r.FieldByName("GroupID").SetString("g")
			r.FieldByName("Sample").SetInt(int64(i))
			r.FieldByName("Reward").Set(reflect.ValueOf(new(float64)))
		}
		rows.Index(1).FieldByName("Reward").Set(reflect.ValueOf(reward))
		path := filepath.Join(t.TempDir(), "t.parquet")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := parquet.NewWriter(f, parquet.SchemaOf(reflect.New(typ).Elem().Interface()))
		for i := 0; i < 2; i++ {
			if err := w.Write(rows.Index(i).Interface()); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return path
	}
	one := 1.0
	if _, _, err := ReadFiles[Trajectory](write(&one)); err != nil {
		t.Errorf("nullable column without NULLs: %v", err)
	}
	path := write(nil)
	_, _, err := ReadFiles[Trajectory](path)
	if err == nil || !IsInputError(err) || !strings.Contains(err.Error(), "column reward: 1 NULL values") {
		t.Errorf("got %v, want an input error about the NULL reward", err)
	}
}
