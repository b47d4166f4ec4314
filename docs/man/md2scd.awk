# md2scd.awk - turns docs/LOGFORMAT.md (Markdown) into the body of the
# snetmon-trace(5) man page (scdoc), so that the page is the document and
# cannot drift from it. Run by cmake/ManPages.cmake after the page's header
# (snetmon-trace.5.scd.in). Handles what that document uses: headings,
# paragraphs, "-" lists, fenced code, tables (as tagged paragraphs: the
# first cells as the tag, the others as "header: value"), **bold**, `code`
# and [links](url). The first "# " heading is the page's NAME, not a section.

function inline(s,    out) {
    gsub(/\\/, "\\\\", s)                    # scdoc escapes
    gsub(/\*\*/, "\001", s)                  # **bold** -> *bold*, after escaping *
    gsub(/\*/, "\\*", s)
    gsub(/_/, "\\_", s)
    gsub(/\001/, "*", s)
    gsub(/`/, "", s)                         # code: plain text in a man page
    while (match(s, /\[[^]]*\]\([^)]*\)/)) {  # [text](url) -> text (url)
        link = substr(s, RSTART, RLENGTH)
        split(link, parts, /\]\(/)
        s = substr(s, 1, RSTART - 1) substr(parts[1], 2) " (" substr(parts[2], 1, length(parts[2]) - 1) ")" substr(s, RSTART + RLENGTH)
    }
    return s
}

# A text line scdoc would take for a list or a table: escape its first
# character.
function lead(s) {
    if (s ~ /^[-.[|:]/) return "\\" s
    return s
}

function flush_item() {
    if (item != "") { print "- " inline(item); item = "" }
}

function cells(line, arr,    n, i) {
    sub(/^\|[ ]*/, "", line); sub(/[ ]*\|[ ]*$/, "", line)
    n = split(line, arr, /[ ]*\|[ ]*/)
    return n
}

BEGIN { code = 0; item = ""; table = 0; named = 0 }

/^```/ {
    flush_item()
    print "```"
    code = !code
    next
}
code { print; next }

/^\|/ {
    flush_item()
    if ($0 ~ /^\|[-| :]+\|$/) next          # the separator row
    n = cells($0, row)
    if (!table) {                            # the header row
        table = 1; ncols = n
        for (i = 1; i <= n; i++) head[i] = row[i]
        next
    }
    tag = row[1]; first = 2
    if (ncols >= 3) { tag = row[1] " " row[2]; first = 3 }
    body = ""
    for (i = first; i <= n; i++)
        body = body (body == "" ? "" : "; ") (ncols > 2 ? head[i] ": " : "") row[i]
    print "*" inline(tag) "*"
    print "\t" inline(body)
    print ""
    next
}
{ table = 0 }

/^# / {
    if (!named) { named = 1; next }          # the title: the page header has it
}
/^## / { flush_item(); print "# " toupper(inline(substr($0, 4))); next }
/^### / { flush_item(); print "## " inline(substr($0, 5)); next }
/^- / { flush_item(); item = substr($0, 3); next }
/^  [^ ]/ && item != "" { sub(/^ +/, ""); item = item " " $0; next }
/^[0-9]+\. / { flush_item(); sub(/^[0-9]+\. /, ""); print ". " inline($0); next }
/^$/ { flush_item(); print ""; next }
{ flush_item(); print lead(inline($0)) }
END { flush_item() }
