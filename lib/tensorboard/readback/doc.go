// Package readback reads TensorBoard event files back for the tests, and
// is written apart from lib/tensorboard on purpose: its own CRC-32C table
// (built bit by bit from the reflected Castagnoli polynomial), its own
// varint and protocol-buffer field decoding, and its own reading of the
// Event, Summary, SummaryMetadata and TensorProto messages. A file it
// reads must be a sequence of whole records whose two checksums hold;
// the first event must be the file_version one. Only tests import it.
package readback
