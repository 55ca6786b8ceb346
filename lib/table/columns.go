package table

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// column is one column of a row struct, found by reflection: an exported
// field with a parquet tag (or none: the field name is the column name). A
// scalar is a string, bool, signed integer or float; a list is a slice of one
// of those and must carry the `list` tag option.
type column struct {
	name  string       // column name (the parquet tag's first part)
	field int          // index of the struct field
	typ   reflect.Type // the field's Go type
	list  bool         // a slice field, stored as a LIST column
	elem  reflect.Kind // kind of the scalar, or of the list element
	desc  string       // the field's `desc` tag, if any
	since int          // the kind's schema version that added the column (`since` tag; 0: the first)
	// nullable: the `optional` tag option. A pointer field stores nil as
	// NULL; a string field stores "" as NULL (and reads NULL as "").
	nullable bool
	ptr      bool // a pointer field (*int32, *float64, ...)
}

// optionalIn reports whether a file of schema version v may lack the
// column: it was added in a later version (a file without pats metadata
// has version 0). Such a column reads as its zero value (NULL for a
// nullable pointer field).
func (c column) optionalIn(v int) bool { return c.since > 1 && v < c.since }

// columnsOf lists the columns of struct type t in field order.
func columnsOf(t reflect.Type) ([]column, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("row type %v is not a struct", t)
	}
	var cols []column
	seen := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("parquet")
		if tag == "-" {
			continue
		}
		parts := strings.Split(tag, ",")
		c := column{name: parts[0], field: i, typ: f.Type, desc: f.Tag.Get("desc")}
		if v := f.Tag.Get("since"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%v.%s: `since` tag %q is not a schema version", t, f.Name, v)
			}
			c.since = n
		}
		if c.name == "" {
			c.name = f.Name
		}
		hasList := false
		for _, o := range parts[1:] {
			switch o {
			case "list":
				hasList = true
			case "optional":
				c.nullable = true
			}
		}
		k := f.Type.Kind()
		if k == reflect.Pointer {
			c.ptr = true
			k = f.Type.Elem().Kind()
			if !c.nullable {
				return nil, fmt.Errorf("%v.%s: pointer field needs the `optional` tag option", t, f.Name)
			}
			if k == reflect.Slice || k == reflect.Pointer {
				return nil, fmt.Errorf("%v.%s: unsupported field type %v (a nullable column is a pointer to a scalar)", t, f.Name, f.Type)
			}
		} else if c.nullable && k != reflect.String {
			return nil, fmt.Errorf("%v.%s: `optional` on a %v field: a nullable number or bool is a pointer field (its zero is a value)", t, f.Name, f.Type)
		}
		if k == reflect.Slice {
			c.list = true
			k = f.Type.Elem().Kind()
			if !hasList {
				return nil, fmt.Errorf("%v.%s: slice field needs the `list` tag option", t, f.Name)
			}
		} else if hasList {
			return nil, fmt.Errorf("%v.%s: `list` tag on a non-slice field", t, f.Name)
		}
		if arrowScalar(k) == nil {
			return nil, fmt.Errorf("%v.%s: unsupported field type %v (want string, bool, int8/16/32/64, float32/64, or a slice of those)", t, f.Name, f.Type)
		}
		c.elem = k
		if seen[c.name] {
			return nil, fmt.Errorf("%v: column %q appears twice", t, c.name)
		}
		seen[c.name] = true
		cols = append(cols, c)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("row type %v has no columns", t)
	}
	return cols, nil
}

// arrowScalar is the Arrow type of a scalar kind, nil when unsupported.
func arrowScalar(k reflect.Kind) arrow.DataType {
	switch k {
	case reflect.String:
		return arrow.BinaryTypes.String
	case reflect.Bool:
		return arrow.FixedWidthTypes.Boolean
	case reflect.Int8:
		return arrow.PrimitiveTypes.Int8
	case reflect.Int16:
		return arrow.PrimitiveTypes.Int16
	case reflect.Int32:
		return arrow.PrimitiveTypes.Int32
	case reflect.Int64, reflect.Int:
		return arrow.PrimitiveTypes.Int64
	case reflect.Float32:
		return arrow.PrimitiveTypes.Float32
	case reflect.Float64:
		return arrow.PrimitiveTypes.Float64
	}
	return nil
}

// arrowType is the column's Arrow type: the scalar, or a list of it.
func (c column) arrowType() arrow.DataType {
	t := arrowScalar(c.elem)
	if c.list {
		return arrow.ListOf(t)
	}
	return t
}

// typeName is the column's type as the docs write it, e.g. "list<int32>"
// or "int32 or NULL".
func (c column) typeName() string {
	n := scalarName(c.elem)
	if c.list {
		return "list<" + n + ">"
	}
	if c.nullable {
		return n + " or NULL"
	}
	return n
}

func scalarName(k reflect.Kind) string {
	switch k {
	case reflect.Int:
		return "int64"
	case reflect.Float32:
		return "float32"
	case reflect.Float64:
		return "float64"
	}
	return k.String()
}

// nilEmptyLists sets every empty list field of the rows to nil, so that rows
// read from any format compare equal to rows built with nil slices.
func nilEmptyLists[T any](rows []T, cols []column) {
	var listFields []int
	for _, c := range cols {
		if c.list {
			listFields = append(listFields, c.field)
		}
	}
	if len(listFields) == 0 {
		return
	}
	for i := range rows {
		v := reflect.ValueOf(&rows[i]).Elem()
		for _, f := range listFields {
			fv := v.Field(f)
			if fv.Len() == 0 && !fv.IsNil() {
				fv.SetZero()
			}
		}
	}
}
