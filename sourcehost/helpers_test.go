package sourcehost_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
)

type rawResponse struct {
	status int
	header http.Header
	body   string
}

// postRaw sends a request by hand, to see exactly what the server answers
// when the client's own checks are bypassed.
func postRaw(url, token, contentType, body string) (rawResponse, error) {
	return doRaw(http.MethodPost, url, token, contentType, body)
}

func doRaw(method, url, token, contentType, body string) (rawResponse, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return rawResponse{}, err
	}
	if token != "" {
		req.Header.Set("PRIVATE-TOKEN", token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return rawResponse{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return rawResponse{status: resp.StatusCode, header: resp.Header, body: string(b)}, err
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// startReceiver serves srv on a loopback port and returns its URL.
func startReceiver(srv *http.Server) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go srv.Serve(l)
	return "http://" + l.Addr().String()
}

func fmtAny(v any) string { return fmt.Sprintf("%q", v) }
