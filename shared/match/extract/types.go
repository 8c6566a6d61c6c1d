package extract

import (
	"net/url"
	"path"
	"strings"

	"github.com/skillmatch/skillmatch/shared/a2a/task"
)

// Media types named more than once below.
const (
	typeOctetStream = "application/octet-stream"
	typeDocx        = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	typeXlsx        = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	typePptx        = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
)

// byExtension maps file extensions to media types. It is a fixed table
// rather than mime.TypeByExtension, whose answers depend on the host's
// mime.types files: extraction must give the same answer everywhere.
var byExtension = map[string]string{
	"pdf":      "application/pdf",
	"csv":      "text/csv",
	"tsv":      "text/tab-separated-values",
	"json":     "application/json",
	"txt":      "text/plain",
	"text":     "text/plain",
	"log":      "text/plain",
	"md":       "text/markdown",
	"markdown": "text/markdown",
	"html":     "text/html",
	"htm":      "text/html",
	"xml":      "application/xml",
	"yaml":     "application/yaml",
	"yml":      "application/yaml",
	"ics":      "text/calendar",
	"rtf":      "application/rtf",
	"eml":      "message/rfc822",
	"epub":     "application/epub+zip",
	"png":      "image/png",
	"jpg":      "image/jpeg",
	"jpeg":     "image/jpeg",
	"gif":      "image/gif",
	"webp":     "image/webp",
	"svg":      "image/svg+xml",
	"bmp":      "image/bmp",
	"tif":      "image/tiff",
	"tiff":     "image/tiff",
	"heic":     "image/heic",
	"mp3":      "audio/mpeg",
	"wav":      "audio/wav",
	"ogg":      "audio/ogg",
	"oga":      "audio/ogg",
	"m4a":      "audio/mp4",
	"flac":     "audio/flac",
	"mp4":      "video/mp4",
	"webm":     "video/webm",
	"mov":      "video/quicktime",
	"avi":      "video/x-msvideo",
	"mkv":      "video/x-matroska",
	"zip":      "application/zip",
	"gz":       "application/gzip",
	"tar":      "application/x-tar",
	"doc":      "application/msword",
	"docx":     typeDocx,
	"xls":      "application/vnd.ms-excel",
	"xlsx":     typeXlsx,
	"ppt":      "application/vnd.ms-powerpoint",
	"pptx":     typePptx,
	"odt":      "application/vnd.oasis.opendocument.text",
	"ods":      "application/vnd.oasis.opendocument.spreadsheet",
	"odp":      "application/vnd.oasis.opendocument.presentation",
}

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
	mt, ok := task.NormalizeMediaType(f.MediaType)
	if ok && !strings.Contains(mt, "*") && mt != typeOctetStream && mt != "binary/octet-stream" {
		return mt
	}
	if t := typeOfName(f.Name); t != "" {
		return t
	}
	if t := typeOfURI(f.URI); t != "" {
		return t
	}
	return typeOctetStream
}

func typeOfName(name string) string {
	name = strings.ReplaceAll(name, `\`, "/")
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
	return byExtension[ext]
}

// typeOfURI reads a data: URI's media type, or the extension of a URL's
// path (not its query, where signed URLs keep their noise).
func typeOfURI(uri string) string {
	if rest, ok := strings.CutPrefix(uri, "data:"); ok {
		head, _, _ := strings.Cut(rest, ",")
		if mt, ok := task.NormalizeMediaType(head); ok && !strings.Contains(mt, "*") {
			return mt
		}
		return ""
	}
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	return typeOfName(u.Path)
}
