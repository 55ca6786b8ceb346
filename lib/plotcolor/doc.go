// Package plotcolor holds the colours of every plot pats draws (report's
// run and sweep plots, audit's credit plots), so that one series index
// has one colour everywhere: a line's colour is Palette[i mod len], a
// qualitative palette of ten colours that stay apart in print and for
// the common colour-vision deficiencies. Past the tenth series colours
// repeat; the sweep plots then change the glyph.
package plotcolor
