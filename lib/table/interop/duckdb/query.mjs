// Runs SQL statements in an in-memory DuckDB and prints their results as
// JSON, so that lib/table/duckdb_test.go can check files written by the
// table package with an independent Parquet reader.
//
// Input (stdin): a JSON array of SQL strings.
// Output (stdout): a JSON array with, per statement, the array of result
// rows as objects (DuckDB's lossless JSON form: BIGINT as a string, lists as
// arrays).
import { DuckDBInstance } from '@duckdb/node-api';

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const statements = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
const results = [];
for (const sql of statements) {
  try {
    const reader = await connection.runAndReadAll(sql);
    results.push(reader.getRowObjectsJson());
  } catch (e) {
    process.stderr.write(`duckdb: ${sql}\n${e.message}\n`);
    process.exit(1);
  }
}
connection.closeSync();
instance.closeSync();
process.stdout.write(JSON.stringify(results));
