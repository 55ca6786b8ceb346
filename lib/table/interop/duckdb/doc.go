// Package duckdb runs SQL statements through DuckDB for Node.js (query.mjs
// beside this file), the independent reader the Parquet files of lib/table
// are checked against by the tests built with the duckdb tag. Install
// DuckDB first with
//
//	npm ci --prefix lib/table/interop/duckdb
//
// It uses only the standard library, so any test of the module can import
// it.
package duckdb
