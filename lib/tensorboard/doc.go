// Package tensorboard writes TensorBoard event files by hand, with no
// protocol-buffer library: the record format (per record a little-endian
// uint64 length, the masked CRC-32C of those eight bytes, the data, the
// masked CRC-32C of the data) holding Event messages, the first of which
// carries file_version "brain.Event:2" and every later one a Summary with
// one value: a scalar as simple_value, or a text as a rank-0 string
// tensor whose metadata names the text plugin (data class tensor, which
// TensorBoard's data server needs to take it).
//
// Nothing here reads the clock: every event's wall_time is what the
// caller gives (lib/report takes it from the input files' own pats.time
// stamps), so the same events give the same bytes.
//
// FileName names a file so that TensorBoard takes it (the name holds
// "tfevents") and so that a folder's files sort by step.
package tensorboard
