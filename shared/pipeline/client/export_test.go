package client

// DecodeDecision is decodeDecision, for the contract test.
var DecodeDecision = decodeDecision
