module attributes {gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>} {
  func.func @matmul_bias_relu(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32>) {
    %c8 = arith.constant 8 : index
    %c1 = arith.constant 1 : index
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
    gpu.launch_func  @matmul_bias_relu_kernel::@matmul_bias_relu_kernel blocks in (%c8, %c8, %c1) threads in (%c8, %c8, %c1)  args(%alloc : memref<64x64xf32>, %arg0 : memref<64x64xf32>, %arg1 : memref<64x64xf32>)
    gpu.launch_func  @matmul_bias_relu_kernel_0::@matmul_bias_relu_kernel blocks in (%c8, %c8, %c1) threads in (%c8, %c8, %c1)  args(%alloc : memref<64x64xf32>, %arg2 : memref<64xf32>, %arg3 : memref<64x64xf32>)
    memref.dealloc %alloc : memref<64x64xf32>
    return
  }
  spirv.module @__spv__matmul_bias_relu_kernel Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Matrix], [SPV_KHR_storage_buffer_storage_class]> {
    spirv.GlobalVariable @__builtin__LocalInvocationId__ built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
    spirv.GlobalVariable @__builtin__WorkgroupId__ built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
    spirv.GlobalVariable @matmul_bias_relu_kernel_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
    spirv.GlobalVariable @matmul_bias_relu_kernel_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
    spirv.GlobalVariable @matmul_bias_relu_kernel_arg_2 bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
    spirv.func @matmul_bias_relu_kernel() "None" attributes {known_block_size = array<i32: 8, 8, 1>, known_grid_size = array<i32: 8, 8, 1>, workgroup_attributions = 0 : i64} {
      %cst8_i32 = spirv.Constant 8 : i32
      %cst_f32 = spirv.Constant 0.000000e+00 : f32
      %cst0_i32 = spirv.Constant 0 : i32
      %cst64_i32 = spirv.Constant 64 : i32
      %cst1_i32 = spirv.Constant 1 : i32
      %matmul_bias_relu_kernel_arg_0_addr = spirv.mlir.addressof @matmul_bias_relu_kernel_arg_0 : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
      %matmul_bias_relu_kernel_arg_1_addr = spirv.mlir.addressof @matmul_bias_relu_kernel_arg_1 : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
      %matmul_bias_relu_kernel_arg_2_addr = spirv.mlir.addressof @matmul_bias_relu_kernel_arg_2 : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
      %__builtin__WorkgroupId___addr = spirv.mlir.addressof @__builtin__WorkgroupId__ : !spirv.ptr<vector<3xi32>, Input>
      %0 = spirv.Load "Input" %__builtin__WorkgroupId___addr : vector<3xi32>
      %1 = spirv.CompositeExtract %0[0 : i32] : vector<3xi32>
      %2 = spirv.Load "Input" %__builtin__WorkgroupId___addr : vector<3xi32>
      %3 = spirv.CompositeExtract %2[1 : i32] : vector<3xi32>
      %__builtin__LocalInvocationId___addr = spirv.mlir.addressof @__builtin__LocalInvocationId__ : !spirv.ptr<vector<3xi32>, Input>
      %4 = spirv.Load "Input" %__builtin__LocalInvocationId___addr : vector<3xi32>
      %5 = spirv.CompositeExtract %4[0 : i32] : vector<3xi32>
      %6 = spirv.Load "Input" %__builtin__LocalInvocationId___addr : vector<3xi32>
      %7 = spirv.CompositeExtract %6[1 : i32] : vector<3xi32>
      %8 = spirv.IMul %3, %cst8_i32 : i32
      %9 = spirv.IMul %1, %cst8_i32 : i32
      %10 = spirv.IAdd %7, %8 : i32
      %11 = spirv.IAdd %5, %9 : i32
      %12 = spirv.IMul %10, %cst64_i32 : i32
      %13 = spirv.IAdd %11, %12 : i32
      %14 = spirv.AccessChain %matmul_bias_relu_kernel_arg_0_addr[%cst0_i32, %13] : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      spirv.Store "StorageBuffer" %14, %cst_f32 : f32
      spirv.mlir.loop {
        spirv.Branch ^bb1(%cst0_i32 : i32)
      ^bb1(%15: i32):  // 2 preds: ^bb0, ^bb2
        %16 = spirv.SLessThan %15, %cst64_i32 : i32
        spirv.BranchConditional %16, ^bb2, ^bb3
      ^bb2:  // pred: ^bb1
        %17 = spirv.IAdd %15, %12 : i32
        %18 = spirv.AccessChain %matmul_bias_relu_kernel_arg_1_addr[%cst0_i32, %17] : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
        %19 = spirv.Load "StorageBuffer" %18 : f32
        %20 = spirv.IMul %15, %cst64_i32 : i32
        %21 = spirv.IAdd %11, %20 : i32
        %22 = spirv.AccessChain %matmul_bias_relu_kernel_arg_2_addr[%cst0_i32, %21] : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
        %23 = spirv.Load "StorageBuffer" %22 : f32
        %24 = spirv.Load "StorageBuffer" %14 : f32
        %25 = spirv.FMul %19, %23 : f32
        %26 = spirv.FAdd %24, %25 : f32
        spirv.Store "StorageBuffer" %14, %26 : f32
        %27 = spirv.IAdd %15, %cst1_i32 : i32
        spirv.Branch ^bb1(%27 : i32)
      ^bb3:  // pred: ^bb1
        spirv.mlir.merge
      }
      spirv.Return
    }
    spirv.EntryPoint "GLCompute" @matmul_bias_relu_kernel, @__builtin__WorkgroupId__, @__builtin__LocalInvocationId__
    spirv.ExecutionMode @matmul_bias_relu_kernel "LocalSize", 8, 8, 1
  }
  gpu.module @matmul_bias_relu_kernel {
    gpu.func @matmul_bias_relu_kernel(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 8, 8, 1>, known_grid_size = array<i32: 8, 8, 1>, spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 8, 1]>} {
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %c8 = arith.constant 8 : index
      %0 = arith.muli %block_id_y, %c8 overflow<nsw> : index
      %c8_0 = arith.constant 8 : index
      %1 = arith.muli %block_id_x, %c8_0 overflow<nsw> : index
      %2 = arith.addi %thread_id_y, %0 : index
      %3 = arith.addi %thread_id_x, %1 : index
      memref.store %cst, %arg0[%2, %3] : memref<64x64xf32>
      scf.for %arg3 = %c0 to %c64 step %c1 {
        %4 = memref.load %arg1[%2, %arg3] : memref<64x64xf32>
        %5 = memref.load %arg2[%arg3, %3] : memref<64x64xf32>
        %6 = memref.load %arg0[%2, %3] : memref<64x64xf32>
        %7 = arith.mulf %4, %5 : f32
        %8 = arith.addf %6, %7 : f32
        memref.store %8, %arg0[%2, %3] : memref<64x64xf32>
      }
      gpu.return
    }
  }
  spirv.module @__spv__matmul_bias_relu_kernel_0 Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Matrix], [SPV_KHR_storage_buffer_storage_class]> {
    spirv.GlobalVariable @__builtin__LocalInvocationId__ built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
    spirv.GlobalVariable @__builtin__WorkgroupId__ built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
    spirv.GlobalVariable @matmul_bias_relu_kernel_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
    spirv.GlobalVariable @matmul_bias_relu_kernel_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<64 x f32, stride=4> [0])>, StorageBuffer>
    spirv.GlobalVariable @matmul_bias_relu_kernel_arg_2 bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
    spirv.func @matmul_bias_relu_kernel() "None" attributes {known_block_size = array<i32: 8, 8, 1>, known_grid_size = array<i32: 8, 8, 1>, workgroup_attributions = 0 : i64} {
      %cst64_i32 = spirv.Constant 64 : i32
      %cst0_i32 = spirv.Constant 0 : i32
      %cst8_i32 = spirv.Constant 8 : i32
      %cst_f32 = spirv.Constant 0.000000e+00 : f32
      %matmul_bias_relu_kernel_arg_0_addr = spirv.mlir.addressof @matmul_bias_relu_kernel_arg_0 : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
      %matmul_bias_relu_kernel_arg_1_addr = spirv.mlir.addressof @matmul_bias_relu_kernel_arg_1 : !spirv.ptr<!spirv.struct<(!spirv.array<64 x f32, stride=4> [0])>, StorageBuffer>
      %matmul_bias_relu_kernel_arg_2_addr = spirv.mlir.addressof @matmul_bias_relu_kernel_arg_2 : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
      %__builtin__WorkgroupId___addr = spirv.mlir.addressof @__builtin__WorkgroupId__ : !spirv.ptr<vector<3xi32>, Input>
      %0 = spirv.Load "Input" %__builtin__WorkgroupId___addr : vector<3xi32>
      %1 = spirv.CompositeExtract %0[0 : i32] : vector<3xi32>
      %2 = spirv.Load "Input" %__builtin__WorkgroupId___addr : vector<3xi32>
      %3 = spirv.CompositeExtract %2[1 : i32] : vector<3xi32>
      %__builtin__LocalInvocationId___addr = spirv.mlir.addressof @__builtin__LocalInvocationId__ : !spirv.ptr<vector<3xi32>, Input>
      %4 = spirv.Load "Input" %__builtin__LocalInvocationId___addr : vector<3xi32>
      %5 = spirv.CompositeExtract %4[0 : i32] : vector<3xi32>
      %6 = spirv.Load "Input" %__builtin__LocalInvocationId___addr : vector<3xi32>
      %7 = spirv.CompositeExtract %6[1 : i32] : vector<3xi32>
      %8 = spirv.IMul %3, %cst8_i32 : i32
      %9 = spirv.IMul %1, %cst8_i32 : i32
      %10 = spirv.IAdd %7, %8 : i32
      %11 = spirv.IAdd %5, %9 : i32
      %12 = spirv.IMul %10, %cst64_i32 : i32
      %13 = spirv.IAdd %11, %12 : i32
      %14 = spirv.AccessChain %matmul_bias_relu_kernel_arg_0_addr[%cst0_i32, %13] : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      %15 = spirv.Load "StorageBuffer" %14 : f32
      %16 = spirv.AccessChain %matmul_bias_relu_kernel_arg_1_addr[%cst0_i32, %11] : !spirv.ptr<!spirv.struct<(!spirv.array<64 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      %17 = spirv.Load "StorageBuffer" %16 : f32
      %18 = spirv.FAdd %15, %17 : f32
      %19 = spirv.GL.FMax %18, %cst_f32 : f32
      %20 = spirv.IsNan %18 : f32
      %21 = spirv.IsNan %cst_f32 : f32
      %22 = spirv.Select %20, %18, %19 : i1, f32
      %23 = spirv.Select %21, %cst_f32, %22 : i1, f32
      %24 = spirv.AccessChain %matmul_bias_relu_kernel_arg_2_addr[%cst0_i32, %13] : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      spirv.Store "StorageBuffer" %24, %23 : f32
      spirv.Return
    }
    spirv.EntryPoint "GLCompute" @matmul_bias_relu_kernel, @__builtin__WorkgroupId__, @__builtin__LocalInvocationId__
    spirv.ExecutionMode @matmul_bias_relu_kernel "LocalSize", 8, 8, 1
  }
  gpu.module @matmul_bias_relu_kernel_0 {
    gpu.func @matmul_bias_relu_kernel(%arg0: memref<64x64xf32>, %arg1: memref<64xf32>, %arg2: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 8, 8, 1>, known_grid_size = array<i32: 8, 8, 1>, spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 8, 1]>} {
      %cst = arith.constant 0.000000e+00 : f32
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %c8 = arith.constant 8 : index
      %0 = arith.muli %block_id_y, %c8 overflow<nsw> : index
      %c8_0 = arith.constant 8 : index
      %1 = arith.muli %block_id_x, %c8_0 overflow<nsw> : index
      %2 = arith.addi %thread_id_y, %0 : index
      %3 = arith.addi %thread_id_x, %1 : index
      %4 = memref.load %arg0[%2, %3] : memref<64x64xf32>
      %5 = memref.load %arg1[%3] : memref<64xf32>
      %6 = arith.addf %4, %5 : f32
      %7 = arith.maximumf %6, %cst : f32
      memref.store %7, %arg2[%2, %3] : memref<64x64xf32>
      gpu.return
    }
  }
}
