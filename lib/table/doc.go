// Package table reads and writes the tables that pats stages exchange: one Go
// struct per row kind (rows*.go), stored as Parquet at rest and as Arrow IPC
// streams on pipes.
//
// # Row kinds
//
// A row kind is a struct whose exported fields carry `parquet` tags naming the
// columns. Allowed field types are string, bool, int8, int16, int32, int64,
// float32, float64 and slices of those; a slice must carry the `list` tag
// option, e.g. `parquet:"tokens,list"`. Every kind is registered once, from
// an init function in lib/table/rows*.go:
//
//	func init() { RegisterKind[Card]("card", 1) }
//
// KindOf, LookupKind and Kinds query the registry. Other packages register
// the kinds they own (lib/report's sweep tables) the same way from their
// own init. docs/schemas.md is generated (SchemaDoc) from every registered
// struct and the comments on its fields; lib/report's TestSchemasDoc fails
// when the two differ (regenerate with SchemaDocCommand). Renaming or
// retyping a column is a schema version change.
//
// # Writing
//
// WriteFile writes Parquet (or an Arrow IPC file for a name ending in
// ".arrow", or an Arrow IPC stream to stdout for "-"). Write encodes to any
// io.Writer in a chosen Format. Output is atomic (AtomicWrite): the bytes go
// to a hidden temporary file in the target's folder, which is synced and then
// renamed over the target; on any error the temporary file is removed and an
// older target stays as it was. Other stages use AtomicWrite for their own
// files (checkpoints, Markdown).
//
// Output is deterministic: the same rows and Meta give the same bytes
// (Parquet pages are zstd-compressed, "created_by" is fixed, metadata keys
// are sorted, and nothing time-dependent is stored unless put in Meta.Extra).
//
// # Metadata
//
// Every file carries a Meta: row kind, schema version, the producing command
// line (CommandLine), the seed, the content hashes of the inputs (HashFile)
// and free-form Extra entries, as Parquet key-value metadata or Arrow schema
// metadata under "pats.*" keys (see docs/schemas.md).
//
// # Reading
//
// ReadFiles[T] reads any mix of Parquet files, Arrow IPC files and streams,
// stdin ("-") and folders (their *.parquet and *.arrow files in name order,
// hidden files skipped) and concatenates them as one table, so sharded
// outputs read as one. The format is told from the first bytes: "PAR1"
// (Parquet), "ARROW1" (Arrow file) or the 0xFFFFFFFF continuation marker
// (Arrow stream); the name does not matter. Invariants on read:
//
//   - every file holds rows of T's kind, at T's schema version or older; a
//     file without pats metadata (written by another tool) is accepted when
//     its columns match;
//   - every column of T is present with the same type (extra columns are
//     ignored);
//   - empty lists are read as nil slices, whatever the format, so rows read
//     from Parquet, Arrow file and Arrow stream compare equal;
//   - no NULL in a column (a NULL list element included; a NULL list reads
//     as empty): Go rows have no NULL, and it would read as 0;
//   - an Arrow stream ends its input: bytes after its end-of-stream marker
//     (a second stream) are refused, not dropped;
//   - a file is read once: named twice, through a link, inside a named
//     folder too, or on stdin as well, it is refused (compared by device
//     and inode; Distinct checks the same for a table read in parts);
//   - every row passes its kind's checks (RowChecker: finite numbers,
//     ranges, iterations >= -1, enumerated values such as Primitives and
//     Ops) and ids are unique (RowKeyer: card ids, proposal ids); Write
//     applies the same checks to every row it writes.
//
// Bad input — a missing, empty, truncated or corrupt file, bytes that are
// neither Parquet nor Arrow, another row kind, a schema mismatch — is an
// *InputError whose message is one line "PATH: problem"; commands map it to
// exit code 2 (IsInputError). Parquet pages carry CRC checksums, so damaged
// Parquet data is detected; Arrow IPC has no checksums, so only damage to its
// structure (offsets, lengths, metadata) is.
//
// Units: none of its own; columns carry the units their descriptions state.
package table
