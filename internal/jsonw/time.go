package jsonw

import "time"

// LayoutMillis is a time in UTC with milliseconds, as GitLab's API writes
// one ("2026-03-04T05:06:07.089Z").
const LayoutMillis = "2006-01-02T15:04:05.000Z"

// AppendTimeMillis appends t as a JSON string in LayoutMillis, in UTC:
// what t.UTC().AppendFormat(b, LayoutMillis) writes between quotes,
// without going through the layout for years 0 to 9999.
func AppendTimeMillis(b []byte, t time.Time) []byte {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		b = append(b, '"')
		b = t.AppendFormat(b, LayoutMillis)
		return append(b, '"')
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / 1e6
	return append(b, '"',
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z', '"')
}
