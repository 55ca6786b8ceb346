package table

import (
	"fmt"
	"io"
	"reflect"
	"sort"
	"sync"
)

// KindInfo describes a registered row kind.
type KindInfo struct {
	Name    string       // the kind's name, stored as metadata pats.kind
	Version int          // its schema version, stored as pats.schema_version
	Type    reflect.Type // the row struct

	// Type-erased Write and ReadFiles of the row type, for code that knows
	// the kind only at run time (rows is a []T).
	write func(w io.Writer, f Format, rows any, meta Meta) error
	read  func(paths ...string) (rows any, metas []Meta, err error)
}

var registry = struct {
	sync.RWMutex
	byType map[reflect.Type]KindInfo
	byName map[string]KindInfo
}{byType: map[reflect.Type]KindInfo{}, byName: map[string]KindInfo{}}

func init() {
	RegisterKind[Trajectory]("trajectory", 8)
	RegisterKind[EvalMetrics]("eval_metrics", 5)
}

// RegisterKind registers row struct T as the row kind name at a schema
// version (>= 1). Row kinds are registered from init functions in the
// lib/table/rows*.go files; registering a name or a type twice, or a struct
// that cannot be a table (see the package doc), panics.
func RegisterKind[T any](name string, version int) {
	t := reflect.TypeFor[T]()
	if name == "" || version < 1 {
		panic(fmt.Sprintf("table.RegisterKind[%v](%q, %d): need a name and a version >= 1", t, name, version))
	}
	if _, err := columnsOf(t); err != nil {
		panic("table.RegisterKind: " + err.Error())
	}
	registry.Lock()
	defer registry.Unlock()
	if k, ok := registry.byName[name]; ok {
		panic(fmt.Sprintf("table.RegisterKind: kind %q already registered for %v", name, k.Type))
	}
	if k, ok := registry.byType[t]; ok {
		panic(fmt.Sprintf("table.RegisterKind: %v already registered as %q", t, k.Name))
	}
	k := KindInfo{Name: name, Version: version, Type: t,
		write: func(w io.Writer, f Format, rows any, meta Meta) error { return Write(w, f, rows.([]T), meta) },
		read: func(paths ...string) (any, []Meta, error) {
			rows, metas, err := ReadFiles[T](paths...)
			return rows, metas, err
		},
	}
	registry.byName[name] = k
	registry.byType[t] = k
}

// KindOf returns the registered kind name of row struct T, or "" when T is
// not registered.
func KindOf[T any]() string {
	k, _ := kindOf(reflect.TypeFor[T]())
	return k.Name
}

func kindOf(t reflect.Type) (KindInfo, bool) {
	registry.RLock()
	defer registry.RUnlock()
	k, ok := registry.byType[t]
	return k, ok
}

// LookupKind returns the registered kind of the given name.
func LookupKind(name string) (KindInfo, bool) {
	registry.RLock()
	defer registry.RUnlock()
	k, ok := registry.byName[name]
	return k, ok
}

// Kinds returns every registered row kind, sorted by name.
func Kinds() []KindInfo {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]KindInfo, 0, len(registry.byName))
	for _, k := range registry.byName {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// schemaOf returns T's kind and columns, or an error when T is not a
// registered row kind (a programming error, not an input error).
func schemaOf[T any]() (KindInfo, []column, error) {
	t := reflect.TypeFor[T]()
	k, ok := kindOf(t)
	if !ok {
		return k, nil, fmt.Errorf("table: row type %v is not a registered row kind (see RegisterKind)", t)
	}
	cols, err := columnsOf(t)
	return k, cols, err
}
