-- The process that claimed a job: once it is gone (see ownerGone), another worker takes the job over
-- at once instead of waiting for the lease to end.
ALTER TABLE "jobs" ADD COLUMN "locked_by" bigint;
