// Package remote holds the rules every exchange with a server follows (a
// served policy's inference server, the refiner's chat endpoint): which
// redirects are followed and with what (Client), and how much of an
// answer is read, alone and together with the answers in flight beside
// it (Decode, Budget). It knows no server's protocol.
package remote
