// Package customer generates the "customer" documents of the Pagination
// workload: the fields and value distributions of the fakeit customer
// template the published DBaaS studies loaded, built by servbench itself
// and deterministically from the record number, so that record n is the
// same document on every machine and in every run.
//
// A document is a db.Record whose fields are the document's top-level
// fields and whose values are JSON texts (Record.JSON is set): strings are
// quoted, address is an object, devices an array, and so on. Document
// stores keep it as a nested document; key-value stores keep the texts.
package customer

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"

	"github.com/servbench/servbench/db"
)

// Fields are the top-level fields of a customer document, in the
// template's order. (The template's key, _id, is the record's key.)
var Fields = []string{
	"doc_id", "gid", "first_name", "middle_name", "last_name", "ballance_current", "dob", "email",
	"isActive", "linear_score", "weighted_score", "phone_country", "phone_by_country", "age_group",
	"age_by_group", "url_protocol", "url_site", "url_domain", "url", "devices", "linked_devices",
	"address", "children", "visited_places", "order_list", "notes",
}

// Field indexes used outside the table.
const (
	fieldDocID   = 0
	fieldAddress = 21
)

// Updatable lists the indexes in Fields of the fields an update may
// change: every field but doc_id and address. Keeping address (and so
// address.country) fixed keeps the number of documents per country known
// to the workload, which is how query results are verified.
var Updatable = func() []int {
	var u []int
	for i := range Fields {
		if i != fieldDocID && i != fieldAddress {
			u = append(u, i)
		}
	}
	return u
}()

// FilterField is the field the Pagination workload filters on.
const FilterField = "address.country"

// countrySalt and docSalt make the country of a record independent of the
// rest of its document.
const (
	countrySalt = 0x6a09e667f3bcc909
	docSalt     = 0xbb67ae8584caa73b
)

// CountryIndex returns the index in Countries of record n's
// address.country, without building the document: a 64-bit mix of n
// (SplitMix64's finalizer) reduced to 0..29. It is what Document writes.
func CountryIndex(n int64) int {
	z := uint64(n) ^ countrySalt
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	hi, _ := bits.Mul64(z, uint64(len(Countries)))
	return int(hi)
}

// Country returns record n's address.country.
func Country(n int64) string { return Countries[CountryIndex(n)] }

// src draws the values. Its methods are defined here, on top of PCG's
// 64-bit output, so that documents do not depend on how a Go release
// implements rand.Rand's helpers.
type src struct{ pcg rand.PCG }

// intn returns a number in [0, n) by the multiply-shift reduction
// ⌊x·n / 2^64⌋; its bias is below n/2^64, nothing at these sizes.
func (s *src) intn(n int) int {
	hi, _ := bits.Mul64(s.pcg.Uint64(), uint64(n))
	return int(hi)
}

// between returns a number in [lo, hi].
func (s *src) between(lo, hi int) int { return lo + s.intn(hi-lo+1) }

func (s *src) bool() bool { return s.pcg.Uint64()>>63 == 1 }

// float returns a number in [0, 1) with 53 random bits.
func (s *src) float() float64 { return float64(s.pcg.Uint64()>>11) * 0x1p-53 }

func (s *src) pick(list []string) string { return list[s.intn(len(list))] }

// weighted returns i with probability w[i] / Σw (chance.weighted).
func (s *src) weighted(w []float64) int {
	var sum float64
	for _, x := range w {
		sum += x
	}
	u := s.float() * sum
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}

// Generator builds documents. It reuses its buffers and is not safe for
// concurrent use: each client thread has its own.
type Generator struct {
	s        src
	notesLen int
	n        int64  // record number of the document being built
	first    []byte // first_name of the document being built, for url
	phone    string // phone_country, for phone_by_country
	age      int    // age_group index, for age_by_group
	proto    string // url_protocol, url_site and url_domain, for url
	site     string
	domain   string
}

// DefaultNotesLength is the default average length of the notes field.
// The template's own fields make about 1.5 KB of compact JSON; the studies
// describe their customer documents as about 4 KB, and notes of 2,560
// bytes on average bring the total there.
const DefaultNotesLength = 2560

// New returns a generator whose documents have a notes field of free text
// of notesLen bytes on average (uniform in [notesLen/2, 3·notesLen/2]);
// 0 leaves the field out, giving the template's fields alone.
func New(notesLen int) *Generator { return &Generator{notesLen: notesLen} }

// Fields returns the top-level fields the generator writes.
func (g *Generator) Fields() []string {
	if g.notesLen == 0 {
		return Fields[:len(Fields)-1]
	}
	return Fields
}

// Document fills dst (reset first) with the document of record n.
func (g *Generator) Document(dst *db.Record, n int64) {
	g.s.pcg.Seed(uint64(n), docSalt)
	g.n = n
	dst.Reset()
	dst.JSON = true
	for i, name := range g.Fields() {
		f := dst.Slot()
		f.Name = name
		f.Value = g.appendField(f.Value, i)
	}
}

// Update fills dst (reset first) with new values of the fields whose
// indexes in Fields are given (taken from Updatable), drawn from seed.
// Fields that depend on others (url on first_name, phone_by_country on
// phone_country, age_by_group on age_group) draw their own basis when the
// other field is not among those updated.
func (g *Generator) Update(dst *db.Record, fields []int, seed uint64) {
	g.s.pcg.Seed(seed, docSalt)
	g.first = append(g.first[:0], g.s.pick(firstNames)...)
	g.phone = g.s.pick(phoneCountries)
	g.age = g.s.intn(len(ageGroups))
	g.proto, g.site, g.domain = g.s.pick(urlProtocols), g.s.pick(urlSites), g.s.pick(urlDomains)
	dst.Reset()
	dst.JSON = true
	for _, i := range fields {
		f := dst.Slot()
		f.Name = Fields[i]
		f.Value = g.appendField(f.Value, i)
	}
}

func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendField appends the JSON value of field Fields[i] to b, drawing
// what it needs in the template's order. Fields that depend on another
// (phone_by_country, age_by_group, url) read what their field before
// drew; a field not known is null.
func (g *Generator) appendField(b []byte, i int) []byte {
	s := &g.s
	switch Fields[i] {
	case "doc_id":
		return strconv.AppendInt(b, g.n, 10)
	case "gid":
		return g.appendGUID(b)
	case "first_name":
		g.first = append(g.first[:0], s.pick(firstNames)...)
		b = append(b, '"')
		b = append(b, g.first...)
		return append(b, '"')
	case "middle_name":
		if s.bool() {
			return appendString(b, s.pick(firstNames))
		}
		return append(b, "null"...)
	case "last_name":
		return appendString(b, s.pick(lastNames))
	case "ballance_current":
		return g.appendDollars(b)
	case "dob":
		return g.appendDate(b)
	case "email":
		return g.appendEmail(b)
	case "isActive":
		return strconv.AppendBool(b, s.bool())
	case "linear_score":
		return strconv.AppendInt(b, int64(s.between(0, 100)), 10)
	case "weighted_score":
		return strconv.AppendInt(b, int64(s.weighted(weightedScoreWeights)*10+s.between(0, 10)), 10)
	case "phone_country":
		g.phone = s.pick(phoneCountries)
		return appendString(b, g.phone)
	case "phone_by_country":
		return g.appendPhone(b, g.phone)
	case "age_group":
		g.age = s.intn(len(ageGroups))
		return appendString(b, ageGroups[g.age])
	case "age_by_group":
		r := ageRanges[g.age]
		return strconv.AppendInt(b, int64(s.between(r[0], r[1])), 10)
	case "url_protocol":
		g.proto = s.pick(urlProtocols)
		return appendString(b, g.proto)
	case "url_site":
		g.site = s.pick(urlSites)
		return appendString(b, g.site)
	case "url_domain":
		g.domain = s.pick(urlDomains)
		return appendString(b, g.domain)
	case "url":
		return g.appendURL(b)
	case "devices":
		b = append(b, '[')
		for j, k := 0, s.between(2, 6); j < k; j++ {
			b = g.appendDevice(comma(b, j))
		}
		return append(b, ']')
	case "linked_devices":
		return g.appendLinkedDevices(b)
	case "address":
		return g.appendAddress(b, Countries[CountryIndex(g.n)], true)
	case "children":
		return g.appendChildren(b)
	case "visited_places":
		return g.appendVisitedPlaces(b)
	case "order_list":
		return g.appendOrderList(b)
	case "notes":
		return g.appendNotes(b)
	}
	return append(b, "null"...)
}

// appendDollars appends chance.dollar(): "$" and an amount below 10,000
// with cents.
func (g *Generator) appendDollars(b []byte) []byte {
	cents := g.s.intn(1_000_000)
	b = append(b, `"$`...)
	b = strconv.AppendInt(b, int64(cents/100), 10)
	b = append(b, '.', byte('0'+cents/10%10), byte('0'+cents%10))
	return append(b, '"')
}

// appendEmail appends an address of a first and a last name, lower case,
// a number below 100 or not, at one of emailDomains.
func (g *Generator) appendEmail(b []byte) []byte {
	s := &g.s
	b = append(b, '"')
	b = appendLower(b, s.pick(firstNames))
	b = append(b, '.')
	b = appendLower(b, s.pick(lastNames))
	if s.bool() {
		b = strconv.AppendInt(b, int64(s.intn(100)), 10)
	}
	b = append(b, '@')
	b = append(b, s.pick(emailDomains)...)
	return append(b, '"')
}

// appendURL appends the URL the record's url_protocol, url_site,
// url_domain and first_name make.
func (g *Generator) appendURL(b []byte) []byte {
	b = append(b, '"')
	b = append(b, g.proto...)
	b = append(b, "://www."...)
	b = append(b, g.site...)
	b = append(b, '.')
	b = append(b, g.domain...)
	b = append(b, '/')
	b = append(b, g.first...)
	return append(b, '"')
}

// appendLinkedDevices appends 3 to 6 lists of 1 to 4 devices each.
func (g *Generator) appendLinkedDevices(b []byte) []byte {
	s := &g.s
	b = append(b, '[')
	for j, k := 0, s.between(3, 6); j < k; j++ {
		b = append(comma(b, j), '[')
		for m, l := 0, s.between(1, 4); m < l; m++ {
			b = g.appendDevice(comma(b, m))
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// appendChildren appends 0 to 5 children: a first name, a gender or
// null, an age from 1 to 17.
func (g *Generator) appendChildren(b []byte) []byte {
	s := &g.s
	b = append(b, '[')
	for j, k := 0, s.between(0, 5); j < k; j++ {
		b = append(comma(b, j), `{"first_name":`...)
		b = appendString(b, s.pick(firstNames))
		b = append(b, `,"gender":`...)
		if s.bool() {
			b = appendString(b, s.pick(genders))
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"age":`...)
		b = strconv.AppendInt(b, int64(s.between(1, 17)), 10)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendVisitedPlaces appends 1 to 4 countries, each with 1 to 5 cities
// and 1 to 5 activities.
func (g *Generator) appendVisitedPlaces(b []byte) []byte {
	s := &g.s
	b = append(b, '[')
	for j, k := 0, s.between(1, 4); j < k; j++ {
		b = append(comma(b, j), `{"country":`...)
		b = appendString(b, s.pick(Countries))
		b = append(b, `,"cities":[`...)
		for m, l := 0, s.between(1, 5); m < l; m++ {
			b = g.appendCity(comma(b, m))
		}
		b = append(b, `],"activities":[`...)
		for m, l := 0, s.between(1, 5); m < l; m++ {
			b = appendString(comma(b, m), s.pick(activities))
		}
		b = append(b, "]}"...)
	}
	return append(b, ']')
}

// appendOrderList appends order ids, as the template draws them from
// the orders of its batch: 1 to 5 consecutive "order---N".
func (g *Generator) appendOrderList(b []byte) []byte {
	s := &g.s
	b = append(b, '[')
	first := int64(s.intn(math.MaxInt32))
	for j, k := 0, s.between(1, 5); j < k; j++ {
		b = append(comma(b, j), `"order---`...)
		b = strconv.AppendInt(b, first+int64(j), 10)
		b = append(b, '"')
	}
	return append(b, ']')
}

func comma(b []byte, i int) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	return b
}

func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendGUID writes a version-4-shaped GUID (chance.guid()).
func (g *Generator) appendGUID(b []byte) []byte {
	x, y := g.s.pcg.Uint64(), g.s.pcg.Uint64()
	b = append(b, '"')
	for i := 0; i < 32; i++ {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b = append(b, '-')
		}
		var nib uint64
		if i < 16 {
			nib = x >> (60 - 4*i) & 0xf
		} else {
			nib = y >> (60 - 4*(i-16)) & 0xf
		}
		switch i {
		case 12:
			nib = 4
		case 16:
			nib = 8 | nib&3
		}
		b = append(b, hexDigits[nib])
	}
	return append(b, '"')
}

// appendDate writes a day between 1980-01-01 and 1999-12-31 as
// "YYYY-MM-DD" (the template's dob).
func (g *Generator) appendDate(b []byte) []byte {
	const first = 3652 // days from 1970-01-01 to 1980-01-01
	const last = 10956 // to 1999-12-31
	y, m, d := civil(int64(g.s.between(first, last)))
	b = append(b, '"')
	b = strconv.AppendInt(b, y, 10)
	b = append(b, '-', byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
	return append(b, '"')
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date
// (Howard Hinnant's civil_from_days).
func civil(z int64) (y int64, m, d int) {
	z += 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func (g *Generator) appendDigits(b []byte, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, byte('0'+g.s.intn(10)))
	}
	return b
}

// appendPhone writes a phone number in the country's usual format.
func (g *Generator) appendPhone(b []byte, country string) []byte {
	b = append(b, '"')
	switch country {
	case "uk":
		b = append(b, "07"...)
		b = g.appendDigits(b, 3)
		b = append(b, ' ')
		b = g.appendDigits(b, 6)
	case "fr":
		b = append(b, '0', byte('1'+g.s.intn(5)))
		for i := 0; i < 4; i++ {
			b = g.appendDigits(append(b, ' '), 2)
		}
	default:
		b = append(b, '(', byte('2'+g.s.intn(8)))
		b = g.appendDigits(b, 2)
		b = append(b, ") "...)
		b = append(b, byte('2'+g.s.intn(8)))
		b = g.appendDigits(b, 2)
		b = append(b, '-')
		b = g.appendDigits(b, 4)
	}
	return append(b, '"')
}

// appendDevice writes a device name: two of A, B, C, a dash, a digit.
func (g *Generator) appendDevice(b []byte) []byte {
	s := &g.s
	return append(b, '"', "ABC"[s.intn(3)], "ABC"[s.intn(3)], '-', byte('0'+s.intn(10)), '"')
}

func (g *Generator) appendCity(b []byte) []byte {
	s := &g.s
	b = append(b, '"')
	if s.intn(3) == 0 {
		b = append(b, s.pick(cityPrefixes)...)
		b = append(b, ' ')
	}
	b = append(b, s.pick(lastNames)...)
	if s.bool() {
		b = append(b, s.pick(citySuffixes)...)
	}
	return append(b, '"')
}

func (g *Generator) appendStreet(b []byte) []byte {
	s := &g.s
	b = append(b, '"')
	b = strconv.AppendInt(b, int64(s.between(1, 99999)), 10)
	b = append(b, ' ')
	if s.bool() {
		b = append(b, s.pick(firstNames)...)
	} else {
		b = append(b, s.pick(lastNames)...)
	}
	b = append(b, ' ')
	b = append(b, s.pick(streetSuffixes)...)
	b = append(b, ' ')
	b = append(b, s.pick(streetSuffixes)...)
	return append(b, '"')
}

// appendAddress writes an address object; the current address has the
// record's country and a previous address, which has a random country and
// the property's current owner.
func (g *Generator) appendAddress(b []byte, country string, current bool) []byte {
	s := &g.s
	b = append(b, `{"street":`...)
	b = g.appendStreet(b)
	b = append(b, `,"city":`...)
	b = g.appendCity(b)
	b = append(b, `,"zip":"`...)
	b = g.appendDigits(b, 5)
	b = append(b, `","country":`...)
	b = appendString(b, country)
	if current {
		b = append(b, `,"prev_address":`...)
		b = g.appendAddress(b, s.pick(Countries), false)
	} else {
		b = append(b, `,"property_current_owner":{"first_name":`...)
		b = appendString(b, s.pick(firstNames))
		b = append(b, `,"middle_name":`...)
		if s.bool() {
			b = appendString(b, s.pick(firstNames))
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"last_name":`...)
		b = appendString(b, s.pick(lastNames))
		b = append(b, `,"phone":`...)
		b = g.appendPhone(b, "us")
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendNotes writes words of free text, notesLen/2 to 3·notesLen/2 bytes.
func (g *Generator) appendNotes(b []byte) []byte {
	s := &g.s
	n := s.between(g.notesLen/2, g.notesLen*3/2)
	b = append(b, '"')
	start := len(b)
	for len(b)-start < n {
		if len(b) > start {
			b = append(b, ' ')
		}
		b = append(b, s.pick(noteWords)...)
	}
	b = b[:start+n]
	return append(b, '"')
}
