package output

import (
	"fmt"
	"io"
	"os"
)

// Size limits of the inputs read whole into memory. A file larger than its
// limit is refused before anything is read, so that a link to /dev/zero or
// a huge (sparse) file never takes a command's memory.
const (
	// MaxTextBytes bounds a small text input: a settings.json, a run's
	// NAME=VALUE lines, a config or generation_config.json, an optimizer
	// record (16 MiB).
	MaxTextBytes = 16 << 20
	// MaxItemsBytes bounds a scaffold's items.yaml (16 MiB).
	MaxItemsBytes = 16 << 20
	// MaxTokenizerBytes bounds a tokenizer.json (256 MiB; the larger
	// Hugging Face tokenizers are about 20 MB).
	MaxTokenizerBytes = 256 << 20
)

// ReadFile reads the named input whole when it is a regular file (after
// links) of at most limit bytes: a device, a FIFO, a folder or a larger
// file is an error naming the path, and nothing is read from it.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := OpenFile(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, limit)
}

// OpenFile opens the named input for reading when it is a regular file
// (after links) of at most limit bytes; see ReadFile.
func OpenFile(path string, limit int64) (*os.File, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("file of %d bytes is over the limit of %d bytes", st.Size(), limit)}
	}
	return f, nil
}

// OpenRegular opens the named input for reading when it is a regular file
// (after links), and gives its FileInfo. A FIFO, a device, a socket or a
// folder is an error naming the path (a *os.PathError): nothing is read
// from it, and the open itself does not wait (a FIFO with no writer would
// block a plain open until one comes).
func OpenRegular(path string) (*os.File, os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, notRegular(path, st)
	}
	// Between the Stat and the open the name may have been replaced: the
	// open does not wait, and the file it gave is checked again.
	f, err := openNoWait(path)
	if err != nil {
		return nil, nil, err
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(path, st)
	}
	return f, st, nil
}

func notRegular(path string, st os.FileInfo) error {
	return &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a regular file but %s", FileKind(st.Mode()))}
}

// ReadAll reads r whole, up to limit bytes: more is an error naming name
// when name is not "" (a stream such as stdin, or a file that grew while
// read).
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("over the limit of %d bytes", limit)
	}
	if err != nil && name != "" {
		err = fmt.Errorf("%s: %w", name, err)
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}
