# SPDX-License-Identifier: GPL-2.0
#
# The conformance table from mwin_conformance's output (its TAP, or a
# console log holding it):
#
#	awk -v md=FILE.md -v csv=FILE.csv -f table.awk LOG
#
# Each case test prints its row as "# conf: CASE FIELD VALUE" lines:
# title, expect and note before it runs; mwin, core (the rdma-core Type 2
# MW) and t1 (Type 1) as "VERDICT TEXT" when each side is done; seconds at
# the end. A case without "seconds" did not finish: its mwin cell says so
# and counts as a difference. Rows are numbered in the order the cases
# ran. Writes nothing when LOG has no case.
#
# With -v siw=SIWLOG (given as a second file too), the mwin cells of that
# log, the same binary's run on siw, make a column "mwin (siw)" after
# the rdma-core one, and columns siw_verdict,siw at the end of the CSV.

BEGIN {
	mark["as-IB"] = "= "
	mark["documented"] = "~ "
	mark["DIFFERS"] = "! "
	mark["setup-failed"] = "? "
	mark["device-defect"] = "x "
}

{ sub(/\r$/, "") }

$1 == "#" && $2 == "conf:" && NF >= 4 {
	id = $3
	field = $4
	value = $0
	sub(/^# conf: [^ ]+ [^ ]+ ?/, "", value)
	if (siw != "" && FILENAME == siw) {
		# the siw run's own cells: its mwin one and whether it finished
		if (field == "mwin") {
			verdict[id, "siw"] = value
			sub(/ .*/, "", verdict[id, "siw"])
			sub(/^[^ ]+ ?/, "", value)
			cell[id, "siw"] = value
		} else if (field == "seconds")
			cell[id, "siw_seconds"] = value
		next
	}
	if (!(id in row))
		row[id] = ++n
	ids[row[id]] = id
	if (field == "mwin" || field == "core" || field == "t1") {
		verdict[id, field] = value
		sub(/ .*/, "", verdict[id, field])
		sub(/^[^ ]+ ?/, "", value)
	}
	cell[id, field] = value
}

function quoted(s) {
	gsub(/"/, "\"\"", s)
	return "\"" s "\""
}

function word(v) {
	return v == "" ? "not-run" : v
}

END {
	if (!n)
		exit
	if (siw != "") {
		print "| # | case | expected IB | mwin | rdma-core MW | mwin (siw) | note |" > md
		print "|---|------|-------------|------|--------------|------------|------|" > md
		print "n,id,case,expected,mwin_verdict,mwin,core_verdict,core,t1,note,seconds,siw_verdict,siw" > csv
	} else {
		print "| # | case | expected IB | mwin | rdma-core MW | note |" > md
		print "|---|------|-------------|------|--------------|------|" > md
		print "n,id,case,expected,mwin_verdict,mwin,core_verdict,core,t1,note,seconds" > csv
	}
	for (i = 1; i <= n; i++) {
		id = ids[i]
		if (!((id, "seconds") in cell)) {
			cell[id, "mwin"] = "did not finish"
			verdict[id, "mwin"] = "DIFFERS"
			cell[id, "seconds"] = "0.0"
		}
		if (siw != "" && !((id, "siw_seconds") in cell)) {
			cell[id, "siw"] = "did not finish"
			verdict[id, "siw"] = "DIFFERS"
		}
		vm = verdict[id, "mwin"]
		vc = verdict[id, "core"]
		vs = verdict[id, "siw"]
		core = mark[vc] cell[id, "core"]
		if (cell[id, "t1"] != "")
			core = mark[vc] "T2B: " cell[id, "core"] " · T1: " cell[id, "t1"]
		siwcell = siw != "" ? " " mark[vs] cell[id, "siw"] " |" : ""
		printf "| %d | %s | %s | %s%s | %s |%s %s |\n", i, cell[id, "title"],
		       cell[id, "expect"], mark[vm], cell[id, "mwin"], core,
		       siwcell, cell[id, "note"] > md
		printf "%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s", i, id,
		       quoted(cell[id, "title"]), quoted(cell[id, "expect"]),
		       word(vm), quoted(cell[id, "mwin"]), word(vc),
		       quoted(cell[id, "core"]), quoted(cell[id, "t1"]),
		       quoted(cell[id, "note"]), cell[id, "seconds"] > csv
		if (siw != "")
			printf ",%s,%s", word(vs), quoted(cell[id, "siw"]) > csv
		printf "\n" > csv
	}
	print "" > md
	print "Legend: `=` as expected by IB, `~` differs as mwin documents (stricter), `!` differs, `?` could not be set up, `x` the device's named defect, which mwin cannot mend (conformance.rst)." > md
	if (siw != "")
		print "On siw (iWARP) a refused access ends the connection with a TERMINATE: a READ completes flushed, a WRITE completes at the requester once TCP has it; `=` there means nothing was written and the connection ended." > md
}
