package sourcehostfake

import (
	"slices"
	"testing"
)

func TestParseCIJobs(t *testing.T) {
	t.Parallel()
	got := parseCIJobs([]byte("stages:\n  - build\nvariables:\n  stage: nope\nbuild:\n  stage: build\n  script: make\n\"quoted job\":\n  script: x\n.hidden:\n  stage: x\ntest: {}\r\n# comment: no\n"))
	want := []ciJobSpec{{"build", "build"}, {"quoted job", "test"}, {"test", "test"}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// FuzzParseCIJobs: any CI definition gives at most maxJobsPerPipeline
// named jobs, each with a stage, and never panics.
func FuzzParseCIJobs(f *testing.F) {
	f.Add([]byte("build:\n  stage: build\ntest: {}\n"))
	f.Add([]byte(":\n  stage:\n\"\":\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		jobs := parseCIJobs(data)
		if len(jobs) > maxJobsPerPipeline {
			t.Fatalf("%d jobs", len(jobs))
		}
		for _, j := range jobs {
			if j.name == "" || j.stage == "" {
				t.Fatalf("job %+v", j)
			}
		}
	})
}
