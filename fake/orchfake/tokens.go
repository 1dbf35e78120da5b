package orchfake

import (
	"encoding/binary"
	"hash/crc32"
)

// Page tokens are opaque bytes: a tag naming what they page, the position,
// and a CRC-32 of the rest, so that a token from another list, a truncated
// one or random bytes are refused as INVALID_ARGUMENT instead of misread.
const (
	tagNames     = 'n' // ListNamespaces: the last name of the page
	tagHistory   = 'h' // history: run id and the next event id
	tagList      = 'l' // List/Scan: the sort key of the last execution
	tagOffset    = 'o' // ListClusterMembers: an offset
	tagSchedules = 's' // ListSchedules: the last schedule id of the page
)

func seal(tag byte, payload []byte) []byte {
	b := make([]byte, 0, len(payload)+5)
	b = append(b, tag)
	b = append(b, payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// unseal checks a token's tag and checksum and returns its payload.
func unseal(tag byte, tok []byte) ([]byte, bool) {
	if len(tok) < 5 || tok[0] != tag {
		return nil, false
	}
	body, sum := tok[:len(tok)-4], binary.BigEndian.Uint32(tok[len(tok)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, false
	}
	return body[1:], true
}

func badToken() *apiError { return badField("next_page_token", "invalid page token") }

func nameToken(name string) []byte { return seal(tagNames, []byte(name)) }

func parseNameToken(tok []byte) (string, error) {
	p, ok := unseal(tagNames, tok)
	if !ok || len(p) == 0 {
		return "", badToken()
	}
	return string(p), nil
}

func historyToken(runID string, next int64) []byte {
	p := binary.AppendUvarint(nil, uint64(next))
	return seal(tagHistory, append(p, runID...))
}

func parseHistoryToken(tok []byte) (runID string, next int64, err error) {
	p, ok := unseal(tagHistory, tok)
	if !ok {
		return "", 0, badToken()
	}
	n, w := binary.Uvarint(p)
	if w <= 0 || n < 1 || n > 1<<40 || len(p) == w {
		return "", 0, badToken()
	}
	return string(p[w:]), int64(n), nil
}

func listToken(key []byte) []byte { return seal(tagList, key) }

func parseListToken(tok []byte) ([]byte, error) {
	p, ok := unseal(tagList, tok)
	if !ok {
		return nil, badToken()
	}
	return p, nil
}

func offsetToken(off int) []byte { return seal(tagOffset, binary.AppendUvarint(nil, uint64(off))) }

func parseOffsetToken(tok []byte) (int, error) {
	p, ok := unseal(tagOffset, tok)
	if !ok {
		return 0, badToken()
	}
	n, w := binary.Uvarint(p)
	if w != len(p) || n > 1<<31 {
		return 0, badToken()
	}
	return int(n), nil
}
