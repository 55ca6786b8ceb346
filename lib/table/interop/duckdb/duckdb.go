package duckdb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Query runs the statements in one DuckDB process and returns each one's
// rows, numbers as json.Number. dir is this folder (query.mjs and its
// node_modules); a DuckDB that is not installed there is an error that
// says how to install it.
func Query(dir string, sql ...string) ([][]map[string]any, error) {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		return nil, errors.New("DuckDB for Node.js is not installed: run `npm ci --prefix lib/table/interop/duckdb` first")
	}
	in, err := json.Marshal(sql)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("node", filepath.Join(dir, "query.mjs"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node query.mjs: %v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var res [][]map[string]any
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("decoding DuckDB output: %v", err)
	}
	return res, nil
}
