package sourcehostfake

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// archiveFormats are the formats of GET .../repository/archive[.format]
// the fake writes, by the name the request gives, with the file
// extension the real service names the archive with. The real service's
// bzip2 names (tar.bz2, tbz, tbz2, tb2, bz2) are refused: Go's standard
// library writes no bzip2.
var archiveFormats = map[string]string{"": ".tar.gz", "tar.gz": ".tar.gz", "tgz": ".tar.gz", "gz": ".tar.gz", "tar": ".tar", "zip": ".zip"}

// bzip2Formats are the real service's bzip2 format names.
var bzip2Formats = []string{"tar.bz2", "tbz", "tbz2", "tb2", "bz2"}

// archiveJob is an archive to write once the state is unlocked: what it
// holds was taken from the state under the lock, and blobs never change.
type archiveJob struct {
	ext, prefix, sha string
	at               time.Time
	paths            []string // sorted
	files            map[string]*blob
}

// repositoryArchive is GET /projects/:id/repository/archive.
func (c *call) repositoryArchive() fakekit.Answer { return c.archive("") }

// repositoryArchiveFormat is GET /projects/:id/repository/archive.:format,
// the path the real service also serves (and GitLab's Go client calls);
// another name under repository/ is not a route.
func (c *call) repositoryArchiveFormat() fakekit.Answer {
	format, ok := strings.CutPrefix(c.r.PathValue("archive"), "archive.")
	if !ok || format == "" {
		return message(http.StatusNotFound, "404 Not Found")
	}
	return c.archive(format)
}

// archive answers the files of a commit (sha: a branch, tag or commit,
// default the default branch), those under path when it is given, as
// the real service's workhorse sends them: a tar.gz, tar or zip whose
// entries are under one directory named like the file, project path, ref
// (slashes made dashes), commit id, and path; Content-Disposition
// attachment with that name. The archive is written after the state is
// unlocked, straight to the connection (see writeArchive).
func (c *call) archive(format string) fakekit.Answer {
	sha, _ := c.p.str("sha")
	dir, _ := c.p.str("path")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	ext, known := archiveFormats[format]
	switch {
	case slices.Contains(bzip2Formats, format):
		return badRequest("format " + format + " is not served by the fake (no bzip2 writer); ask for tar.gz, tar or zip")
	case !known:
		return message(http.StatusNotFound, "404 Not Found") // the real service's route takes no other format
	}
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	ref := sha
	if ref == "" {
		ref = pr.defaultBranch
	}
	cm := pr.repo.resolve(ref)
	if cm == nil {
		return notFound("File")
	}
	dir = strings.Trim(dir, "/")
	job := &archiveJob{ext: ext, sha: cm.sha, at: cm.at, files: map[string]*blob{}}
	for p, b := range cm.files {
		if dir == "" || p == dir || strings.HasPrefix(p, dir+"/") {
			job.paths = append(job.paths, p)
			job.files[p] = b
		}
	}
	slices.Sort(job.paths)
	prefix := []string{pr.path, strings.ReplaceAll(ref, "/", "-"), cm.sha}
	if dir != "" {
		prefix = append(prefix, strings.ReplaceAll(dir, "/", "-"))
	}
	job.prefix = strings.Join(prefix, "-")
	return fakekit.Answer{Status: http.StatusOK, Body: job}
}

// writeArchive sends an archive answer: the headers, then the archive
// written as it goes, never whole in memory. A write that fails (the
// caller left) ends it.
func writeArchive(w http.ResponseWriter, job *archiveJob) {
	h := w.Header()
	h.Set("Content-Disposition", `attachment; filename="`+job.prefix+job.ext+`"`)
	h.Set("Content-Transfer-Encoding", "binary")
	h.Set("Content-Type", "application/octet-stream")
	if job.ext == ".zip" {
		h.Set("Content-Type", "application/zip")
	}
	w.WriteHeader(http.StatusOK)
	_ = job.write(w)
}

// write writes the archive to w.
func (job *archiveJob) write(w io.Writer) error {
	if job.ext == ".zip" {
		return job.writeZip(w)
	}
	if job.ext == ".tar" {
		return job.writeTar(w)
	}
	gz := gzip.NewWriter(w)
	gz.ModTime = job.at
	if err := job.writeTar(gz); err != nil {
		return err
	}
	return gz.Close()
}

// dirs are the directories of the archive's entries, each once, parents
// first: the prefix, then every directory a file is in.
func (job *archiveJob) dirs() []string {
	seen := map[string]bool{}
	var out []string
	var add func(d string)
	add = func(d string) {
		if d == "." || d == "" || seen[d] {
			return
		}
		add(path.Dir(d))
		seen[d] = true
		out = append(out, d)
	}
	for _, p := range job.paths {
		add(path.Dir(p))
	}
	return out
}

func (job *archiveJob) writeTar(w io.Writer) error {
	tw := tar.NewWriter(w)
	// git archive's pax global header names the commit.
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header",
		PAXRecords: map[string]string{"comment": job.sha}, Format: tar.FormatPAX}); err != nil {
		return err
	}
	dir := func(name string) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: job.prefix + "/" + name, Mode: 0o755, ModTime: job.at, Format: tar.FormatPAX})
	}
	if err := dir(""); err != nil {
		return err
	}
	for _, d := range job.dirs() {
		if err := dir(d + "/"); err != nil {
			return err
		}
	}
	for _, p := range job.paths {
		data := job.files[p].data
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: job.prefix + "/" + p, Mode: 0o644, Size: int64(len(data)),
			ModTime: job.at, Format: tar.FormatPAX}); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	return tw.Close()
}

func (job *archiveJob) writeZip(w io.Writer) error {
	zw := zip.NewWriter(w)
	if err := zw.SetComment(job.sha); err != nil {
		return err
	}
	dir := func(name string) error {
		fh := &zip.FileHeader{Name: job.prefix + "/" + name, Modified: job.at}
		fh.SetMode(fs.ModeDir | 0o755)
		_, err := zw.CreateHeader(fh)
		return err
	}
	if err := dir(""); err != nil {
		return err
	}
	for _, d := range job.dirs() {
		if err := dir(d + "/"); err != nil {
			return err
		}
	}
	for _, p := range job.paths {
		fh := &zip.FileHeader{Name: job.prefix + "/" + p, Method: zip.Deflate, Modified: job.at}
		fh.SetMode(0o644)
		f, err := zw.CreateHeader(fh)
		if err != nil {
			return err
		}
		if _, err := f.Write(job.files[p].data); err != nil {
			return err
		}
	}
	return zw.Close()
}
