#!/bin/sh
# Drives every control of a running apitwin-fake with curl alone, as the
# README shows: CONTROL_URL and CONTROL_TOKEN are the control line's url
# and token, ERP_URL and ERP_KEY the erp line's url and api_key.
set -eu
auth="Authorization: Bearer $CONTROL_TOKEN"
json="Content-Type: application/json"

# The services, and what the control API offers.
curl -fsS -H "$auth" "$CONTROL_URL/api/services" | grep -q '"name": "erp"'
curl -fsS "$CONTROL_URL/openapi.json" | grep -q '"openapi"'

# Reset a service, and seed data in the format of --seed files.
curl -fsS -X POST -H "$auth" "$CONTROL_URL/api/erp/reset"
curl -fsS -X POST -H "$auth" -H 'Content-Type: application/yaml' --data-binary @- "$CONTROL_URL/api/seed" <<'YAML'
erp:
  thirdparties: [{name: Curl Corp}]
YAML

# A fault: the ERP answers 503 once, then as usual.
curl -fsS -X POST -H "$auth" -H "$json" -d '{"status":503,"times":1}' "$CONTROL_URL/api/erp/faults" | grep -q '"remaining": 1'
curl -fsS -H "$auth" "$CONTROL_URL/api/erp/faults" | grep -q '"status": 503'
first=$(curl -s -o /dev/null -w '%{http_code}' -H "ERPAPIKEY: $ERP_KEY" "$ERP_URL/api/index.php/thirdparties")
second=$(curl -s -H "ERPAPIKEY: $ERP_KEY" "$ERP_URL/api/index.php/thirdparties")
[ "$first" = 503 ] || { echo "the fault did not answer: $first"; exit 1; }
echo "$second" | grep -q 'Curl Corp' || { echo "the seed is not there: $second"; exit 1; }
curl -fsS -X DELETE -H "$auth" "$CONTROL_URL/api/erp/faults"

# The request log: what the program sent, and what it got.
curl -fsS -H "$auth" "$CONTROL_URL/api/erp/requests?status=503" | grep -q '"fault": true'
curl -fsS -H "$auth" "$CONTROL_URL/api/erp/requests?limit=1" | grep -q 'Curl Corp'
curl -fsS -X DELETE -H "$auth" "$CONTROL_URL/api/erp/requests"

# The clock: freeze it, move it, follow the wall clock again.
curl -fsS -X POST -H "$auth" "$CONTROL_URL/api/clock/freeze" | grep -q '"following_wall_clock": false'
curl -fsS -X POST -H "$auth" -H "$json" -d '{"by":"1h"}' "$CONTROL_URL/api/clock/advance" | grep -q '"now"'
curl -fsS -X POST -H "$auth" "$CONTROL_URL/api/clock/follow" | grep -q '"following_wall_clock": true'

# Webhook deliveries and orch at a glance.
curl -fsS -H "$auth" "$CONTROL_URL/api/sourcehost/deliveries" > /dev/null
curl -fsS -H "$auth" "$CONTROL_URL/api/orch/workflows" > /dev/null
curl -fsS -H "$auth" "$CONTROL_URL/api/orch/task-queues" > /dev/null

# A bad request is a 400 naming the problem.
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "$auth" -H "$json" -d '{"by":"tomorrow"}' "$CONTROL_URL/api/clock/advance")
[ "$code" = 400 ] || { echo "bad advance: $code"; exit 1; }
curl -s -X POST -H "$auth" -H "$json" -d '{"by":"tomorrow"}' "$CONTROL_URL/api/clock/advance" | grep -q 'not a duration'
echo ok
