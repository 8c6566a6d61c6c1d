package extract

import (
	"net/url"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/mediatype"
	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// inputTypes returns the media types of the message's files, deduplicated
// and sorted.
func inputTypes(parts []task.Part) []string {
	var out []string
	for _, p := range parts {
		if p.File != nil {
			out = append(out, fileType(p.File))
		}
	}
	return sortedSet(out)
}

// fileType is the file's declared media type when it is concrete and says
// something; otherwise the type its name (or URI) implies; otherwise
// application/octet-stream, which only skills accepting anything take.
func fileType(f *task.File) string {
	mt, ok := mediatype.Concrete(f.MediaType)
	if ok && mt != mediatype.OctetStream && mt != "binary/octet-stream" {
		return mt
	}
	if t := mediatype.OfName(f.Name); t != "" {
		return t
	}
	if t := typeOfURI(f.URI); t != "" {
		return t
	}
	return mediatype.OctetStream
}

// typeOfURI reads a data: URI's media type, or the extension of a URL's
// path (not its query, where signed URLs keep their noise).
func typeOfURI(uri string) string {
	if rest, ok := strings.CutPrefix(uri, "data:"); ok {
		head, _, _ := strings.Cut(rest, ",")
		if mt, ok := mediatype.Concrete(head); ok {
			return mt
		}
		return ""
	}
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	return mediatype.OfName(u.Path)
}
