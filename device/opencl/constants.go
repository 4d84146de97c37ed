package opencl

// Numeric values of the OpenCL C API's enumerations, from the Khronos headers (CL/cl.h).
// Only what this backend uses is listed.

// cl_platform_info
const (
	clPlatformVersion = 0x0901
	clPlatformName    = 0x0902
	clPlatformVendor  = 0x0903
)

// cl_device_type bits
const (
	clDeviceTypeCPU         = 1 << 1
	clDeviceTypeGPU         = 1 << 2
	clDeviceTypeAccelerator = 1 << 3
	clDeviceTypeCustom      = 1 << 4
	clDeviceTypeAll         = 0xFFFFFFFF
)

// cl_device_info
const (
	clDeviceType                     = 0x1000
	clDeviceMaxComputeUnits          = 0x1002
	clDeviceMaxWorkGroupSize         = 0x1004
	clDeviceMaxWorkItemSizes         = 0x1005
	clDeviceMaxClockFrequency        = 0x100C
	clDeviceMaxMemAllocSize          = 0x1010
	clDeviceMemBaseAddrAlign         = 0x1019 // in bits
	clDeviceGlobalMemSize            = 0x101F
	clDeviceMaxConstantBufferSize    = 0x1020
	clDeviceMaxConstantArgs          = 0x1021
	clDeviceLocalMemType             = 0x1022
	clDeviceLocalMemSize             = 0x1023
	clDeviceProfilingTimerResolution = 0x1025
	clDeviceName                     = 0x102B
	clDeviceVendor                   = 0x102C
	clDriverVersion                  = 0x102D
	clDeviceVersion                  = 0x102F
	clDeviceOpenCLCVersion           = 0x103D
	clDeviceExtensions               = 0x1030
	clDeviceDoubleFPConfig           = 0x1032 // 0: no double precision
)

// cl_device_local_mem_type
const (
	clLocal  = 0x1
	clGlobal = 0x2
)

// cl_context_properties
const clContextPlatform = 0x1084

// cl_command_queue_properties bits
const clQueueProfilingEnable = 1 << 1

// cl_mem_flags bits
const clMemReadWrite = 1 << 0

// cl_buffer_create_type (OpenCL 1.1)
const clBufferCreateTypeRegion = 0x1220

// cl_program_build_info
const clProgramBuildLog = 0x1183

// clProgramKernelNames is CL_PROGRAM_KERNEL_NAMES (OpenCL 1.2): the program's kernels,
// separated by semicolons.
const clProgramKernelNames = 0x1168

// cl_kernel_info
const clKernelNumArgs = 0x1191

// cl_kernel_arg_info
const (
	clKernelArgAddressQualifier = 0x1196
	clKernelArgTypeName         = 0x1198
	clKernelArgName             = 0x119A
)

// cl_kernel_arg_address_qualifier
const (
	clKernelArgAddressGlobal   = 0x119B
	clKernelArgAddressLocal    = 0x119C
	clKernelArgAddressConstant = 0x119D
	clKernelArgAddressPrivate  = 0x119E
)

// cl_kernel_work_group_info
const (
	clKernelWorkGroupSize                  = 0x11B0
	clKernelCompileWorkGroupSize           = 0x11B1
	clKernelLocalMemSize                   = 0x11B2
	clKernelPreferredWorkGroupSizeMultiple = 0x11B3
	clKernelPrivateMemSize                 = 0x11B4
)

// cl_event_info
const clEventCommandExecutionStatus = 0x11D3

// cl_profiling_info
const (
	clProfilingCommandStart = 0x1282
	clProfilingCommandEnd   = 0x1283
)

// cl_bool
const clTrue = 1
