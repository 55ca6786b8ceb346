// Package pats is the module root. Its test (cases_test.go) runs the
// golden bad-input cases in testdata/cases against the built binaries; the
// tools themselves are in cmd/ and their logic in lib/.
package pats
