// Package remote holds the rules every exchange with a server follows (a
// served policy's inference server, the refiner's chat endpoint, an
// environment server): which URLs name a server (IsURL, CheckURL), which
// redirects are followed and with what (Client), how much of an answer is
// read, alone and together with the answers in flight beside it (Decode,
// Budget), and which failures are tried again and how (RetryStatus,
// Retry, Sleep: waits that end with their context). It knows no server's
// protocol.
package remote
