// Package discover fetches A2A agent cards from agents' well-known URLs
// and keeps them fresh.
//
// A Fetcher reads one agent's card conservatively, because the URLs it is
// pointed at (a registry file, a command line) must not turn skillmatch
// into a request forger:
//
//   - only http and https URLs, never with credentials in them;
//   - the response is read through a size cap (512 KiB by default) and
//     refused, not truncated, when it is larger;
//   - a connect timeout (3 s) and a total timeout (10 s) bound every fetch;
//   - redirects are followed only to the same host and port, never from
//     https to http, and at most 3 times;
//   - private, loopback, link-local, unspecified, multicast, carrier-grade
//     NAT and reserved addresses are refused unless WithAllowPrivate(true)
//     or Agent.AllowPrivate. The check runs on the resolved IP at dial
//     time, on the address actually connected to, so a name that resolves
//     to a public address when it is checked and a private one when it is
//     used (DNS rebinding) is still refused. Environment proxies are not
//     used, since a proxy would hide the address. The classification is
//     package endpoint's, the same one a delegation's interface URL must
//     pass (IPv4 embedded in IPv6 included), so a card cannot send a
//     delegation where its own fetch would be refused.
//
// The card is read from <base>/.well-known/agent-card.json, or from the
// legacy <base>/.well-known/agent.json when the first answers 404. A
// stored ETag is sent as If-None-Match and a 304 keeps the cached card;
// Cache-Control max-age is honoured (no request before it expires, capped
// by WithMaxAge), no-cache forces revalidation and no-store keeps neither
// ETag nor expiry.
//
// Authenticated extended cards: when a card sets
// capabilities.extendedAgentCard (v0.3: supportsAuthenticatedExtendedCard)
// and credentials are configured for the agent (WithCredentials), the
// Fetcher asks for the extended card the way the a2a-go SDK's HTTP+JSON
// transport does: GET <interface URL>/extendedAgentCard, where the
// interface is the card's first HTTP+JSON interface. The SDK's JSON-RPC
// method (GetExtendedAgentCard) is not used. Because the interface URL is
// written by the agent, credentials are sent only when that interface is
// on the same scheme, host and port as the agent's base URL. A usable
// extended card replaces the public one; when it cannot be had, the
// public card is kept and Fetched.ExtendedErr says why.
//
// A Tracker keeps per-agent state (ETag, expiry, content hash, version,
// consecutive failures) and turns each refresh into Unchanged, Changed,
// Failed or Removed; a Registry is the JSON file listing the agents to
// track.
package discover
