package env

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTaskSet(t *testing.T) {
	type task struct{ id, text string }
	s := NewTaskSet("toy", []string{SplitTrain, SplitValidSeen}, func(x task) string { return x.id })
	s.Add(SplitValidSeen, task{"v1", "c"})
	s.Add(SplitTrain, task{"t2", "b"})
	s.Add(SplitTrain, task{"t1", "a"})
	ids, err := s.Tasks(SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"t2", "t1"}, ids); diff != "" {
		t.Errorf("train ids (-want +got):\n%s", diff)
	}
	if _, err := s.Tasks("test"); err == nil || err.Error() != `toy: unknown split "test" (known: train, valid_seen)` {
		t.Errorf("unknown split: %v", err)
	}
	if x, err := s.Get("v1"); err != nil || x.text != "c" {
		t.Errorf("Get v1: %+v %v", x, err)
	}
	if _, err := s.Get("zz"); err == nil || err.Error() != `toy: unknown task id "zz"` {
		t.Errorf("unknown id: %v", err)
	}
	var order []string
	s.Each(func(split string, ts []task) {
		for _, x := range ts {
			order = append(order, split+":"+x.id)
		}
	})
	if diff := cmp.Diff([]string{"train:t2", "train:t1", "valid_seen:v1"}, order); diff != "" {
		t.Errorf("Each order (-want +got):\n%s", diff)
	}
}
