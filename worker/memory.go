package worker

// memoryLimitEnv passes Options.MemoryLimit to a child: the limit in bytes, which
// ServeChild sets before it opens the device.
const memoryLimitEnv = "KTUNE_WORKER_DATA_LIMIT"

// MemoryShare is the part of the machine's memory that DefaultMemoryLimit gives a worker.
const MemoryShare = 2
