package refiner

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pats-rl/pats/lib/card"
	"github.com/pats-rl/pats/lib/card/cardtest"
	"github.com/pats-rl/pats/lib/scaffold"
	"github.com/pats-rl/pats/lib/table"
	"github.com/pats-rl/pats/lib/validate"
)

var update = flag.Bool("update", false, "rewrite the recorded exchange's request under testdata/")

// TestOpenAIRecordedExchange: the request the OpenAI refiner sends for one
// scope (cards of iterations 2 and 3, one of the window's rules already an
// item) is the recorded one, byte for byte: the window's cards and the
// smoothed evidence with its statistics and supporting cards are in the
// prompt. The recorded answer's proposals go through the same validator as
// the rule-based refiner's, which accepts the one citing cards of both
// iterations and rejects the one citing a card the run does not have.
func TestOpenAIRecordedExchange(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	var trajs []table.Trajectory
	for _, k := range []int32{2, 3} {
		eps := cardtest.Episodes(r, heat, "heat", 2, 0.3)
		for i := range eps {
			eps[i].Iteration = k
		}
		trajs = append(trajs, eps...)
	}
	cards, ev, err := card.Build(trajs, card.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	e, _ := card.EvidenceFor(ev, heat, 3)
	items := []table.ScaffoldItem{it("t-h-1", scaffold.LayerTask, heat, "Use the heat action when the task calls for it.", 2, "c-2-"+heat+"-g0", "c-2-"+heat+"-g1")}
	in := Input{Iteration: 3, TaskType: heat, Primitive: scaffold.Expand, Evidence: e, Cards: cards, Items: items}
	dir := filepath.Join("testdata", "openai-exchange")
	answer, err := os.ReadFile(filepath.Join(dir, "answer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Write(answer)
	}))
	defer srv.Close()
	o := NewOpenAI(srv.URL, "served-model")
	o.APIKey = ""
	res, err := o.Propose(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	got, _ := json.MarshalIndent(req, "", "  ")
	got = append(got, '\n')
	path := filepath.Join(dir, "request.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("request differs from %s (go test ./lib/refiner -run TestOpenAIRecordedExchange -update) (-want +got):\n%s", path, diff)
	}
	user := req.Messages[1].Content
	for _, w := range []string{"failure:loop in ", "over iterations 2-3, 4 cards", "supporting cards c-2-" + heat, "c-3-" + heat + "-g0 iteration 3", "c-2-" + heat + "-g1 iteration 2", "t-h-1 [task]"} {
		if !strings.Contains(user, w) {
			t.Errorf("prompt lacks %q:\n%s", w, user)
		}
	}
	_, dec := validate.Apply(items, res.Proposals, cards, validate.DefaultOptions())
	var reasons []string
	for _, d := range dec {
		reasons = append(reasons, d.Reason)
	}
	if diff := cmp.Diff([]string{validate.OK, validate.SupportUnknown}, reasons); diff != "" {
		t.Errorf("decisions (-want +got):\n%s\n%+v", diff, dec)
	}
}
