package mediatype

// Media types that other packages name too.
const (
	// OctetStream says nothing about the content: only skills that take
	// anything take it.
	OctetStream = "application/octet-stream"
	Docx        = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	Xlsx        = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	Pptx        = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
)

// byExtension maps file extensions (lower case, no dot) to media types. It
// is a fixed table rather than mime.TypeByExtension, whose answers depend on
// the host's mime.types files: extraction must give the same answer
// everywhere.
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
	"docx":     Docx,
	"xls":      "application/vnd.ms-excel",
	"xlsx":     Xlsx,
	"ppt":      "application/vnd.ms-powerpoint",
	"pptx":     Pptx,
	"odt":      "application/vnd.oasis.opendocument.text",
	"ods":      "application/vnd.oasis.opendocument.spreadsheet",
	"odp":      "application/vnd.oasis.opendocument.presentation",
}
