package mcpwire

// ErrorData is the data member of the gateway's errors: {status, message}
// for an upstream error or a refusal, {param, reason} for a parameter it
// refused. The gateway writes it; mcp.Error reads it.
type ErrorData struct {
	Status  int    `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Param   string `json:"param,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// RetryAfter is in whole seconds, rounded up, at most MaxRetryAfter.
	RetryAfter int64 `json:"retry_after,omitempty"`
}

// MaxRetryAfter bounds, in seconds, the wait an answer may ask for (a day):
// the gateway asks for no more, and the client believes no more, so that
// no value overflows a time.Duration.
const MaxRetryAfter = 24 * 3600
