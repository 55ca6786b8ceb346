package tensorboard

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// FileVersion is the file_version of the first event of every file.
const FileVersion = "brain.Event:2"

// Field numbers of the messages written (TensorBoard's event.proto,
// summary.proto and tensor.proto).
const (
	eventWallTime    = 1
	eventStep        = 2
	eventFileVersion = 3
	eventSummary     = 5

	summaryValue = 1

	valueTag      = 1
	valueSimple   = 2
	valueTensor   = 8
	valueMetadata = 9

	metadataPluginData = 1
	metadataDataClass  = 4
	pluginName         = 1

	tensorDtype     = 1
	tensorShape     = 2
	tensorStrings   = 8
	dtypeString     = 7 // DT_STRING
	dataClassTensor = 2 // DATA_CLASS_TENSOR
)

// TextPlugin is the plugin a text value's metadata names.
const TextPlugin = "text"

// Event is one summary value at a step: a scalar, or a text when IsText.
type Event struct {
	WallTime float64 // seconds since 1970, as the caller has it (never the clock's)
	Step     int64
	Tag      string
	Scalar   float32 // the scalar's value
	Text     string  // the text (Markdown, as TensorBoard's text plugin shows it)
	IsText   bool
}

// Scalar makes a scalar event.
func Scalar(wall float64, step int64, tag string, v float64) Event {
	return Event{WallTime: wall, Step: step, Tag: tag, Scalar: float32(v)}
}

// Text makes a text event.
func Text(wall float64, step int64, tag, text string) Event {
	return Event{WallTime: wall, Step: step, Tag: tag, Text: text, IsText: true}
}

// check refuses an event TensorBoard would drop or misread.
func (e Event) check() error {
	if math.IsNaN(e.WallTime) || math.IsInf(e.WallTime, 0) {
		return fmt.Errorf("event %q at step %d: wall time %v is not finite", e.Tag, e.Step, e.WallTime)
	}
	if e.Tag == "" {
		return fmt.Errorf("event at step %d: empty tag", e.Step)
	}
	return nil
}

// header encodes the wall time and step, the fields every event shares;
// zero values are left out, as protocol buffers' version 3 leaves them.
func header(wall float64, step int64) msg {
	var m msg
	if wall != 0 {
		m = m.double(eventWallTime, wall)
	}
	if step != 0 {
		m = m.varint(eventStep, step)
	}
	return m
}

// encodeFileVersion encodes the first event of a file.
func encodeFileVersion(wall float64) []byte {
	return header(wall, 0).bytes(eventFileVersion, []byte(FileVersion))
}

// encode encodes e as an Event message holding a Summary of one value.
func (e Event) encode() []byte {
	v := msg(nil).bytes(valueTag, []byte(e.Tag))
	if e.IsText {
		shape := msg(nil) // rank 0: a shape without dimensions
		t := msg(nil).varint(tensorDtype, dtypeString).bytes(tensorShape, shape).bytes(tensorStrings, []byte(e.Text))
		plugin := msg(nil).bytes(pluginName, []byte(TextPlugin))
		md := msg(nil).bytes(metadataPluginData, plugin).varint(metadataDataClass, dataClassTensor)
		v = v.bytes(valueTensor, t).bytes(valueMetadata, md)
	} else {
		v = v.float(valueSimple, e.Scalar)
	}
	sum := msg(nil).bytes(summaryValue, v)
	return header(e.WallTime, e.Step).bytes(eventSummary, sum)
}

// Encode returns the bytes of an event file: the file_version event (at
// wall, the time the file stands for), then events in order.
func Encode(wall float64, events []Event) ([]byte, error) {
	if math.IsNaN(wall) || math.IsInf(wall, 0) {
		return nil, fmt.Errorf("file wall time %v is not finite", wall)
	}
	b := AppendRecord(nil, encodeFileVersion(wall))
	for _, e := range events {
		if err := e.check(); err != nil {
			return nil, err
		}
		b = AppendRecord(b, e.encode())
	}
	return b, nil
}

// Write writes the event file of Encode to w.
func Write(w io.Writer, wall float64, events []Event) error {
	b, err := Encode(wall, events)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// FileName names the event file of part at step: "events.out.tfevents."
// then the step in ten digits, so that a folder's files sort by step,
// then the part (letters, digits, '-', '_' and '.'; anything else becomes
// '_').
func FileName(step int64, part string) string {
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, part)
	return fmt.Sprintf("events.out.tfevents.%010d.%s", step, clean)
}
