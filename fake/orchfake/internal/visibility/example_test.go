package visibility_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
)

func Example() {
	schema := visibility.NewSchema()
	if err := schema.Register("CustomerId", visibility.TypeKeyword); err != nil {
		panic(err)
	}
	q, err := visibility.Parse("WorkflowType = 'OrderFlow' and ExecutionStatus = 'running' and CustomerId starts_with 'acme-'", schema)
	if err != nil {
		panic(err)
	}
	rec := visibility.MapRecord{
		"WorkflowType":    visibility.StringValue("OrderFlow"),
		"ExecutionStatus": visibility.StringValue("Running"),
		"StartTime":       visibility.TimeValue(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)),
		"CustomerId":      visibility.StringValue("acme-42"),
	}
	fmt.Println(q)
	fmt.Println(q.Match(rec), q.OrderBy())

	_, err = visibility.Parse("WorkflowType = 'OrderFlow' AND AND", schema)
	var se *visibility.SyntaxError
	fmt.Println(errors.As(err, &se), se.Pos, err)
	// Output:
	// WorkflowType = 'OrderFlow' AND ExecutionStatus = 'Running' AND CustomerId STARTS_WITH 'acme-'
	// true [{StartTime true} {RunId false}]
	// true 31 invalid query: unexpected token "AND" at position 31
}
