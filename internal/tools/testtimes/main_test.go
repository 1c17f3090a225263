package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"packages by their seconds, tests by theirs, engines apart, subtests deeper left out", `
{"Action":"run","Package":"langmodel/a","Test":"TestX"}
{"Action":"pass","Package":"langmodel/a","Test":"TestX/chromium/page","Elapsed":4}
{"Action":"pass","Package":"langmodel/a","Test":"TestX/chromium","Elapsed":5}
{"Action":"pass","Package":"langmodel/a","Test":"TestX/webkit","Elapsed":9}
{"Action":"pass","Package":"langmodel/a","Test":"TestX","Elapsed":14}
{"Action":"pass","Package":"langmodel/a","Test":"TestY","Elapsed":20}
{"Action":"pass","Package":"langmodel/a","Elapsed":35}
make[1]: Entering directory
{"Action":"fail","Package":"langmodel/b","Test":"TestZ","Elapsed":1}
{"Action":"fail","Package":"langmodel/b","Elapsed":2}
{"Action":"pass","Package":"langmodel/b","Elapsed":3}
`, `| package | s |
|---|---:|
| langmodel/a | 35 |
| langmodel/b | 5 |

| test | package | s | chromium | firefox | webkit |
|---|---|---:|---:|---:|---:|
| TestY | a | 20 |  |  |  |
| TestX | a | 14 | 5 |  | 9 |
| TestZ | b | 1 |  |  |  |
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, run(strings.NewReader(tc.in), &out, 30))
			require.Equal(t, tc.want, out.String())
		})
	}
}

func TestRun_RefusesBrokenJSON(t *testing.T) {
	err := run(strings.NewReader("{\"Action\":\n"), &bytes.Buffer{}, 30)
	require.EqualError(t, err, `reading {"Action":: unexpected end of JSON input`)
}
