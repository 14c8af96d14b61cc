-- The process that claimed an execution: once it is gone (see ownerGone), another worker takes the
-- execution over at once instead of waiting for the lease to end.
ALTER TABLE "workflow_executions" ADD COLUMN "locked_by" bigint;
