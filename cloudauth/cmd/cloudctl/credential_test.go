package main

import (
	"strings"
	"testing"
)

// FuzzDecodeCredential: whatever the token store holds, reading it fails
// cleanly or gives back a credential that stores as what it read means.
func FuzzDecodeCredential(f *testing.F) {
	for _, s := range []string{"a.b.c", `{"access_token":"a.b.c","refresh_token":"r"}`, `{"access_token":""}`, "{", ` {"x":1}`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stored string) {
		c, err := decodeCredential(stored)
		if err != nil {
			if strings.Contains(err.Error(), stored) && len(stored) > 8 {
				t.Fatal("the error quotes what the store holds")
			}
			return
		}
		again, err := decodeCredential(c.encode())
		if err != nil || again != c {
			t.Fatalf("%q: %+v, again %+v (%v)", stored, c, again, err)
		}
		if s := c.String(); c.AccessToken != "" && len(c.AccessToken) > 8 && strings.Contains(s, c.AccessToken) {
			t.Fatal("String shows the token")
		}
	})
}
