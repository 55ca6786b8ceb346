// Package cardtest holds episode fixtures for the tests of evidence cards
// and of the code that reads them (the cards and control stages, the
// refiners): a small hand-made batch with known card values, and random
// groups of household episodes with a chosen success probability. It
// imports only lib/table, so lib/card's own tests can use it.
package cardtest
