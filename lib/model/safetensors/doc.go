// Package safetensors reads and writes the safetensors tensor file format
// used by Hugging Face checkpoints.
//
// A file is an 8-byte little-endian header length N, then N bytes of JSON
// mapping each tensor name to {"dtype", "shape", "data_offsets": [begin,
// end)}, with an optional "__metadata__" map of strings, then the raw
// little-endian tensor bytes; offsets count from the first byte after the
// header. The writer pads the header with spaces to a multiple of 8 bytes.
//
// Supported element types: F32, BF16 and F16 on read (converted to float32
// by Tensor.Float32), F32 and BF16 on write (BF16 rounds to nearest even).
// Sharded checkpoints are a set of files plus an index
// (model.safetensors.index.json) whose "weight_map" names the file holding
// each tensor; ReadDir reads either layout, WriteShards writes the sharded
// one.
package safetensors
