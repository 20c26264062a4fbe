package index

import (
	"bytes"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/segment"
)

// wordsName is the tokenizer of every analyzer. It finds the words Bleve's Unicode tokenizer finds
// (the word boundaries of UAX #29, by the segment package), with the same positions, offsets and
// types, so that indexes written with Bleve's tokenizer are searched alike and mappingVersion stays;
// but it finds the words of ASCII text with a loop over its bytes. Bleve's tokenizer, whose state
// machine decodes every rune, was 11 % of an index build's CPU, and a calendar's text is mostly
// ASCII: with this one, a build of 1M events took 85–87 s instead of 95–100 s (docs/BENCHMARKS.md,
// section "The index build").
// Words with other letters are still found by the segment package.
const wordsName = "calendard_words"

// wordsTokenizer is the tokenizer wordsName names. The input is cut at its spaces and line feeds, where
// every UAX #29 word ends and none begins (no rule joins a word to a space or a line break); a piece
// holding only ASCII is split by asciiWords, any other by the segment package. Input that is not
// UTF-8 goes to Bleve's tokenizer whole, since the segment package stops at an invalid byte.
type wordsTokenizer struct{}

func (wordsTokenizer) Tokenize(input []byte) analysis.TokenStream {
	if !utf8.Valid(input) {
		return unicode.NewUnicodeTokenizer().Tokenize(input)
	}
	// About as many words as pieces: one allocation of tokens for most input.
	n := bytes.Count(input, []byte{' '}) + bytes.Count(input, []byte{'\n'}) + 1
	w := tokenChunks{toks: make([]analysis.Token, 0, n), out: make(analysis.TokenStream, 0, n)}
	var segs [][]byte
	var types []int
	for start := 0; start < len(input); {
		end := bytes.IndexAny(input[start:], " \n")
		if end < 0 {
			end = len(input)
		} else {
			end += start
		}
		piece := input[start:end]
		if isASCII(piece) {
			asciiWords(piece, start, &w)
		} else {
			if segs == nil {
				// Given no slices, the segment package makes room for 1,000 segments, 32 KB a call:
				// that made a build slower than with Bleve's tokenizer.
				segs, types = make([][]byte, 0, 8), make([]int, 0, 8)
			}
			segs, types, _, _ = segment.SegmentWordsDirect(piece, segs[:0], types[:0])
			at := start
			for i, seg := range segs {
				if types[i] != segment.None {
					w.add(seg, at, wordType(types[i]))
				}
				at += len(seg)
			}
		}
		start = end + 1
	}
	return w.out
}

// tokenChunks collects a tokenizer's tokens. The tokens live in chunks that are never grown, since the
// stream points into them. The first chunk holds as many tokens as the input has pieces, which is
// nearly always enough, so the next are small.
type tokenChunks struct {
	toks []analysis.Token
	out  analysis.TokenStream
}

func (w *tokenChunks) add(term []byte, start int, typ analysis.TokenType) {
	if len(w.toks) == cap(w.toks) {
		w.toks = make([]analysis.Token, 0, 16)
	}
	w.toks = append(w.toks, analysis.Token{Term: term, Start: start, End: start + len(term),
		Position: len(w.out) + 1, Type: typ})
	w.out = append(w.out, &w.toks[len(w.toks)-1])
}

// wordType is the token type Bleve's Unicode tokenizer gives a segment's type.
func wordType(t int) analysis.TokenType {
	switch t {
	case segment.Ideo, segment.Kana:
		return analysis.Ideographic
	case segment.Number:
		return analysis.Numeric
	}
	return analysis.AlphaNumeric
}

// asciiWords adds the UAX #29 words of s, which holds only ASCII and begins at offset in the input.
// In ASCII a word is a run of letters, digits and underscores (ALetter, Numeric, ExtendNumLet), in
// which a colon, full stop or apostrophe between two letters (MidLetter, MidNumLet, Single_Quote)
// and a comma, semicolon, full stop or apostrophe between two digits (MidNum, MidNumLet,
// Single_Quote) do not break it (rules WB5–WB13b). A word without letters but with a digit is a
// number, as the segment package's rule for numbers matches it first.
func asciiWords(s []byte, offset int, w *tokenChunks) {
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		start, letters, digits := i, false, false
	word:
		for ; i < len(s); i++ {
			switch c := s[i]; {
			case isLetter(c):
				letters = true
			case isDigit(c):
				digits = true
			case c == '_':
			case i+1 < len(s) && isLetter(s[i-1]) && isLetter(s[i+1]) && (c == ':' || c == '.' || c == '\''):
			case i+1 < len(s) && isDigit(s[i-1]) && isDigit(s[i+1]) && (c == ',' || c == ';' || c == '.' || c == '\''):
			default:
				break word
			}
		}
		typ := analysis.AlphaNumeric
		if digits && !letters {
			typ = analysis.Numeric
		}
		w.add(s[start:i], offset+start, typ)
	}
}

func isWordByte(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
