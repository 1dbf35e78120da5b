package erpfake

import (
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/apitwin/apitwin/clock"
)

// state is everything the fake holds. Server.mu guards it.
type state struct {
	clock *clock.Fake
	seq   map[string]int64 // last id given per kind
	refs  map[string]int   // last counter of final refs per prefix ("FA", "CO")

	users    []*user // in id order
	keys     map[string]*user
	sessions map[string]*session
	pruneAt  int // open sessions at which a login next sweeps the expired

	// *entityRecords is the records of the entity (company) being worked
	// in: home, the default entity 1, except while an API call that names
	// another one in its ERPAPIENTITY header runs (Server.inEntity). The
	// other entities that hold records are in entities; users, sessions,
	// ids and ref counters are shared by all.
	*entityRecords
	home     *entityRecords
	entities map[int64]*entityRecords // besides home (entity 1); none empty
}

// entityRecords is what one entity holds: third parties and the records
// that hang on them.
type entityRecords struct {
	thirdparties []*thirdparty
	products     []*product
	invoices     []*invoice
	orders       []*order
	proposals    []*proposal
	contacts     []*contact
}

func (r *entityRecords) empty() bool {
	return len(r.thirdparties)+len(r.products)+len(r.invoices)+len(r.orders)+len(r.proposals)+len(r.contacts) == 0
}

func newState(clk *clock.Fake) *state {
	home := &entityRecords{}
	return &state{clock: clk, seq: map[string]int64{}, refs: map[string]int{}, keys: map[string]*user{}, sessions: map[string]*session{},
		entityRecords: home, home: home, entities: map[int64]*entityRecords{}}
}

func (st *state) next(kind string) int64 {
	st.seq[kind]++
	return st.seq[kind]
}

func (st *state) now() time.Time { return st.clock.Now().UTC().Truncate(time.Second) }

// byID finds a record in a list kept in id order.
func byID[T interface{ recID() int64 }](list []T, id int64) (T, bool) {
	lo, hi := 0, len(list)
	for lo < hi {
		m := (lo + hi) / 2
		switch got := list[m].recID(); {
		case got == id:
			return list[m], true
		case got < id:
			lo = m + 1
		default:
			hi = m
		}
	}
	var zero T
	return zero, false
}

type user struct {
	id        int64
	login     string
	password  string
	lastname  string
	firstname string
	email     string
	job       string
	admin     bool
	employee  bool
	enabled   bool
	apiKey    string
	datec     time.Time
	datem     time.Time
	lastLogin time.Time
}

func (u *user) recID() int64 { return u.id }

// userFields are a new user's values.
type userFields struct {
	login, password, lastname, firstname, email, job string
	admin, employee                                  bool
}

func (st *state) addUser(f userFields) *user {
	now := st.now()
	u := &user{id: st.next("user"), login: f.login, password: f.password, lastname: f.lastname, firstname: f.firstname,
		email: f.email, job: f.job, admin: f.admin, employee: f.employee, enabled: true, datec: now, datem: now}
	st.users = append(st.users, u)
	return u
}

func (st *state) userByLogin(login string) *user {
	for _, u := range st.users {
		if strings.EqualFold(u.login, login) {
			return u
		}
	}
	return nil
}

func (st *state) setKey(u *user, key string) {
	if u.apiKey != "" {
		delete(st.keys, u.apiKey)
	}
	u.apiKey = key
	if key != "" {
		st.keys[key] = u
	}
}

func (st *state) deleteUser(u *user) {
	st.setKey(u, "")
	for id, s := range st.sessions {
		if s.user == u {
			delete(st.sessions, id)
		}
	}
	st.users = remove(st.users, u)
}

func remove[T comparable](list []T, v T) []T {
	for i, x := range list {
		if x == v {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// session is a web session: its user, and when it was last used (it ends
// after the timeout without use, as a PHP session does).
type session struct {
	user     *user
	lastSeen time.Time
}

func (st *state) sessionAlive(s *session, timeout time.Duration) bool {
	return st.clock.Now().Sub(s.lastSeen) < timeout
}

// pruneSessions drops the sessions that have expired.
func (st *state) pruneSessions(timeout time.Duration) {
	for id, s := range st.sessions {
		if !st.sessionAlive(s, timeout) {
			delete(st.sessions, id)
		}
	}
}

// sessionUser finds the live session of r's cookie and marks it used.
func (st *state) sessionUser(r *http.Request, timeout time.Duration) *user {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return nil
	}
	s := st.sessions[c.Value]
	if s == nil {
		return nil
	}
	if !st.sessionAlive(s, timeout) {
		delete(st.sessions, c.Value)
		return nil
	}
	s.lastSeen = st.clock.Now()
	return s.user
}

type thirdparty struct {
	id           int64
	name         string
	alias        string
	client       int64
	supplier     bool
	codeClient   string
	codeSupplier string
	email        string
	phone        string
	address      string
	zip          string
	town         string
	country      string
	vat          string
	active       bool
	notePublic   string
	notePrivate  string
	datec        time.Time
	datem        time.Time
}

func (t *thirdparty) recID() int64 { return t.id }

type product struct {
	id          int64
	ref         string
	label       string
	description string
	typ         int64
	price       *big.Rat
	priceTTC    *big.Rat
	priceMin    *big.Rat
	baseType    string
	vat         *big.Rat
	onSale      bool
	onPurchase  bool
	barcode     string
	stock       *big.Rat
	weight      *big.Rat
	notePublic  string
	notePrivate string
	datec       time.Time
	datem       time.Time
}

func (p *product) recID() int64 { return p.id }

func (st *state) productByRef(ref string) *product {
	for _, p := range st.products {
		if strings.EqualFold(p.ref, ref) {
			return p
		}
	}
	return nil
}

// line is a line of an invoice or an order.
type line struct {
	id       int64
	product  *product // nil for a free-text line
	typ      int64
	desc     string
	qty      *big.Rat
	subprice *big.Rat
	discount *big.Rat
	vat      *big.Rat
	ht       *big.Rat
	tva      *big.Rat
	ttc      *big.Rat
	rank     int64
}

// document is what invoices and orders share.
type document struct {
	id             int64
	ref            string
	refClient      string
	soc            *thirdparty
	status         int64
	date           time.Time
	datec          time.Time
	dateValidation time.Time
	ht, tva, ttc   *big.Rat
	notePublic     string
	notePrivate    string
	author         *user
	lines          []*line
	// pdf is the document PUT /documents/builddoc last built, which
	// /documents/download answers; nil before.
	pdf []byte
}

func (d *document) recID() int64 { return d.id }

type invoice struct {
	document
	typ      int64
	paid     bool
	due      time.Time
	payments []paymentPart // oldest first
	order    *order        // the order it was made from, if any
	// closeCode and closeNote say why an invoice was classified paid
	// without its payments covering it.
	closeCode, closeNote string
}

type order struct {
	document
	billed   bool
	delivery time.Time
	closedAt time.Time
}

// proposal is a commercial proposal (a quote): a draft, validated, then
// closed signed or not signed by the customer, and billed.
type proposal struct {
	document
	endValidity time.Time // fin_validite: the date plus the validity (15 days)
	closedAt    time.Time // when it was closed signed or not signed
}

// Invoice, order and proposal statuses, as the ERP numbers them.
const (
	statusDraft     = 0
	statusValidated = 1
	invoicePaid     = 2
	invoiceCanceled = 3
	orderCanceled   = -1
	orderShipping   = 2
	orderClosed     = 3
	propalSigned    = 2
	propalNotSigned = 3
	propalBilled    = 4
)

// hundred and friends are constants of the money arithmetic.
var (
	hundred = big.NewRat(100, 1)
	one     = big.NewRat(1, 1)
)

// round rounds r to scale decimals, halves away from zero, as PHP's round()
// does the ERP's amounts.
func round(r *big.Rat, scale int) *big.Rat {
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	num := new(big.Int).Mul(r.Num(), pow)
	q, rem := new(big.Int).QuoRem(num, r.Denom(), new(big.Int))
	if rem.Sign() != 0 && new(big.Int).Abs(new(big.Int).Lsh(rem, 1)).Cmp(r.Denom()) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return new(big.Rat).SetFrac(q, pow)
}

// computeLine sets a line's totals: HT = qty × unit price × (1 − discount),
// the tax on HT at the line's rate, each rounded to the cent; TTC = HT +
// tax.
func computeLine(l *line) {
	ht := new(big.Rat).Mul(l.qty, l.subprice)
	ht.Mul(ht, new(big.Rat).Sub(one, new(big.Rat).Quo(l.discount, hundred)))
	l.ht = round(ht, 2)
	l.tva = round(new(big.Rat).Quo(new(big.Rat).Mul(l.ht, l.vat), hundred), 2)
	l.ttc = new(big.Rat).Add(l.ht, l.tva)
}

// computeTotals sums a document's lines.
func (d *document) computeTotals() {
	d.ht, d.tva, d.ttc = new(big.Rat), new(big.Rat), new(big.Rat)
	for _, l := range d.lines {
		d.ht.Add(d.ht, l.ht)
		d.tva.Add(d.tva, l.tva)
		d.ttc.Add(d.ttc, l.ttc)
	}
}

// finalRef gives the next final ref for prefix, on the year and month of
// date: FA2611-0001. Like the ERP's default numbering, the counter runs on
// across months.
func (st *state) finalRef(prefix string, date time.Time) string {
	st.refs[prefix]++
	return fmt.Sprintf("%s%s-%04d", prefix, date.Format("0601"), st.refs[prefix])
}

// dayOf is the date part of t, at midnight UTC: the ERP keeps document
// dates as days.
func dayOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}
