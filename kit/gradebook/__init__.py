"""The gradebook: the grades out of nbgrader's database, with the TAs' hand grades.

In: the gradebook (sqlite, or PostgreSQL via ``KPCA_DB_URL``) after autograde and
formgrader. Out: ``reports/grades.csv`` (:mod:`.export`), the CSV of ``nbgrader export``
with the auto/manual split (:mod:`.export_plugin`, nbgrader's ``ExportApp.plugin_class``),
the marks of a submission as they stand (:mod:`.hand_grades`), and a sqlite gradebook
moved to another database (:mod:`.move`, ``python -m kit.gradebook_move``).
"""
