package sourcehost_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

func hookRequest(method, event, token, body string) *http.Request {
	r := httptest.NewRequest(method, "/hook", strings.NewReader(body))
	r.Header.Set(sourcehost.HookEventHeader, event)
	if token != "" {
		r.Header.Set(sourcehost.HookTokenHeader, token)
	}
	return r
}

func TestParseWebhook(t *testing.T) {
	t.Parallel()
	ev, err := sourcehost.ParseWebhook(hookRequest("POST", "Merge Request Hook", "tok",
		`{"object_kind":"merge_request","object_attributes":{"iid":3,"action":"merge","source_branch":"f"}}`), "tok")
	if err != nil {
		t.Fatal(err)
	}
	mr, ok := ev.(*sourcehost.MergeRequestEvent)
	if !ok || mr.ObjectAttributes.IID != 3 || mr.ObjectAttributes.Action != "merge" {
		t.Fatalf("%#v", ev)
	}
	for _, tc := range []struct {
		name string
		r    *http.Request
		is   error
	}{
		{"wrong token", hookRequest("POST", "Push Hook", "nope", `{"object_kind":"push"}`), sourcehost.ErrHookToken},
		{"missing token", hookRequest("POST", "Push Hook", "", `{"object_kind":"push"}`), sourcehost.ErrHookToken},
		{"unknown event", hookRequest("POST", "Build Hook", "tok", `{}`), sourcehost.ErrUnknownHookEvent},
		{"GET", hookRequest("GET", "Push Hook", "tok", `{"object_kind":"push"}`), nil},
		{"kind mismatch", hookRequest("POST", "Push Hook", "tok", `{"object_kind":"issue"}`), nil},
		{"bad JSON", hookRequest("POST", "Issue Hook", "tok", `{"object_kind":`), nil},
	} {
		_, err := sourcehost.ParseWebhook(tc.r, "tok")
		if err == nil || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
	// No secret configured: the token is not checked.
	if _, err := sourcehost.ParseWebhook(hookRequest("POST", "Push Hook", "", `{"object_kind":"push","ref":"refs/heads/main"}`), ""); err != nil {
		t.Fatal(err)
	}
}

func FuzzParseWebhookPayload(f *testing.F) {
	for _, seed := range []struct{ event, body string }{
		{"Push Hook", `{"object_kind":"push","commits":[{"id":"a","timestamp":"2024-01-01T00:00:00Z"}]}`},
		{"Issue Hook", `{"object_kind":"issue","object_attributes":{"iid":1,"closed_at":null}}`},
		{"Pipeline Hook", `{"object_kind":"pipeline","object_attributes":{"duration":3}}`},
		{"Wiki Page Hook", `{"object_kind":"wiki_page"}`},
		{"Merge Request Hook", `[]`},
		{"Tag Push Hook", `{"object_kind":"tag_push","ref":"refs/tags/v1","checkout_sha":null}`},
		{"Note Hook", `{"object_kind":"note","object_attributes":{"note":"hi"},"issue":{"iid":1}}`},
		{"Release Hook", `{"object_kind":"release","action":"create","commit":{"id":"a"}}`},
		{"Job Hook", `{"object_kind":"build","build_duration":1.5,"build_started_at":null}`},
	} {
		f.Add(seed.event, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		ev, err := sourcehost.ParseWebhookPayload(event, body)
		if (ev == nil) == (err == nil) {
			t.Fatalf("want exactly one of an event and an error: %v %v", ev, err)
		}
	})
}
