"""``groupcheck campaign``: many seeded swarm walks of one protocol and scope, run in
process or as Spark tasks, with their violations deduplicated and shrunk, written as
Parquet datasets, ITF traces and one self-contained HTML report.

``walks`` (one walk, a pure function of its inputs), ``signature`` (what makes two
violations the same), ``shrink`` (delta debugging over a path), ``engine`` (the local
loop or the Spark job), ``output`` (the run folder), ``report`` (the HTML page)."""
