module attributes {gpu.container_module, spirv.target_env = #spirv.target_env<#spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>} {
  func.func @matmul_bias_relu(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    gpu.launch_func  @matmul_bias_relu_kernel::@matmul_bias_relu_kernel blocks in (%c8, %c8, %c1) threads in (%c8, %c8, %c1)  args(%arg0 : memref<64x64xf32>, %arg1 : memref<64x64xf32>, %arg2 : memref<64xf32>, %arg3 : memref<64x64xf32>)
    return
  }
  spirv.module @__spv__matmul_bias_relu_kernel Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Matrix], [SPV_KHR_storage_buffer_storage_class]> {
    spirv.GlobalVariable @__builtin__LocalInvocationId__ built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
    spirv.GlobalVariable @__builtin__WorkgroupId__ built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
    spirv.GlobalVariable @matmul_bias_relu_kernel_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
    spirv.GlobalVariable @matmul_bias_relu_kernel_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
    spirv.GlobalVariable @matmul_bias_relu_kernel_arg_2 bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.array<64 x f32, stride=4> [0])>, StorageBuffer>
    spirv.GlobalVariable @matmul_bias_relu_kernel_arg_3 bind(0, 3) : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
    spirv.func @matmul_bias_relu_kernel() "None" attributes {known_block_size = array<i32: 8, 8, 1>, known_grid_size = array<i32: 8, 8, 1>, workgroup_attributions = 0 : i64} {
      %cst8_i32 = spirv.Constant 8 : i32
      %cst_f32 = spirv.Constant 0.000000e+00 : f32
      %cst0_i32 = spirv.Constant 0 : i32
      %cst64_i32 = spirv.Constant 64 : i32
      %cst1_i32 = spirv.Constant 1 : i32
      %matmul_bias_relu_kernel_arg_0_addr = spirv.mlir.addressof @matmul_bias_relu_kernel_arg_0 : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
      %matmul_bias_relu_kernel_arg_1_addr = spirv.mlir.addressof @matmul_bias_relu_kernel_arg_1 : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
      %matmul_bias_relu_kernel_arg_2_addr = spirv.mlir.addressof @matmul_bias_relu_kernel_arg_2 : !spirv.ptr<!spirv.struct<(!spirv.array<64 x f32, stride=4> [0])>, StorageBuffer>
      %matmul_bias_relu_kernel_arg_3_addr = spirv.mlir.addressof @matmul_bias_relu_kernel_arg_3 : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>
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
      %8 = spirv.Variable : !spirv.ptr<!spirv.struct<(!spirv.array<1 x f32>)>, Function>
      %9 = spirv.AccessChain %8[%cst0_i32, %cst0_i32] : !spirv.ptr<!spirv.struct<(!spirv.array<1 x f32>)>, Function>, i32, i32 -> !spirv.ptr<f32, Function>
      spirv.Store "Function" %9, %cst_f32 : f32
      spirv.mlir.loop {
        spirv.Branch ^bb1(%cst0_i32 : i32)
      ^bb1(%26: i32):  // 2 preds: ^bb0, ^bb2
        %27 = spirv.SLessThan %26, %cst64_i32 : i32
        spirv.BranchConditional %27, ^bb2, ^bb3
      ^bb2:  // pred: ^bb1
        %28 = spirv.IMul %3, %cst8_i32 : i32
        %29 = spirv.IAdd %7, %28 : i32
        %30 = spirv.IMul %29, %cst64_i32 : i32
        %31 = spirv.IAdd %26, %30 : i32
        %32 = spirv.AccessChain %matmul_bias_relu_kernel_arg_0_addr[%cst0_i32, %31] : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
        %33 = spirv.Load "StorageBuffer" %32 : f32
        %34 = spirv.IMul %1, %cst8_i32 : i32
        %35 = spirv.IAdd %5, %34 : i32
        %36 = spirv.IMul %26, %cst64_i32 : i32
        %37 = spirv.IAdd %35, %36 : i32
        %38 = spirv.AccessChain %matmul_bias_relu_kernel_arg_1_addr[%cst0_i32, %37] : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
        %39 = spirv.Load "StorageBuffer" %38 : f32
        %40 = spirv.Load "Function" %9 : f32
        %41 = spirv.FMul %33, %39 : f32
        %42 = spirv.FAdd %40, %41 : f32
        spirv.Store "Function" %9, %42 : f32
        %43 = spirv.IAdd %26, %cst1_i32 : i32
        spirv.Branch ^bb1(%43 : i32)
      ^bb3:  // pred: ^bb1
        spirv.mlir.merge
      }
      %10 = spirv.Load "Function" %9 : f32
      %11 = spirv.IMul %1, %cst8_i32 : i32
      %12 = spirv.IAdd %5, %11 : i32
      %13 = spirv.AccessChain %matmul_bias_relu_kernel_arg_2_addr[%cst0_i32, %12] : !spirv.ptr<!spirv.struct<(!spirv.array<64 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      %14 = spirv.Load "StorageBuffer" %13 : f32
      %15 = spirv.FAdd %10, %14 : f32
      %16 = spirv.GL.FMax %15, %cst_f32 : f32
      %17 = spirv.IsNan %15 : f32
      %18 = spirv.IsNan %cst_f32 : f32
      %19 = spirv.Select %17, %15, %16 : i1, f32
      %20 = spirv.Select %18, %cst_f32, %19 : i1, f32
      %21 = spirv.IMul %3, %cst8_i32 : i32
      %22 = spirv.IAdd %7, %21 : i32
      %23 = spirv.IMul %22, %cst64_i32 : i32
      %24 = spirv.IAdd %12, %23 : i32
      %25 = spirv.AccessChain %matmul_bias_relu_kernel_arg_3_addr[%cst0_i32, %24] : !spirv.ptr<!spirv.struct<(!spirv.array<4096 x f32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
      spirv.Store "StorageBuffer" %25, %20 : f32
      spirv.Return
    }
    spirv.EntryPoint "GLCompute" @matmul_bias_relu_kernel, @__builtin__WorkgroupId__, @__builtin__LocalInvocationId__
    spirv.ExecutionMode @matmul_bias_relu_kernel "LocalSize", 8, 8, 1
  }
  gpu.module @matmul_bias_relu_kernel {
    gpu.func @matmul_bias_relu_kernel(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32>) kernel attributes {known_block_size = array<i32: 8, 8, 1>, known_grid_size = array<i32: 8, 8, 1>, spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [8, 8, 1]>} {
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c0 = arith.constant 0 : index
      %cst = arith.constant 0.000000e+00 : f32
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %alloca = memref.alloca() {alignment = 64 : i64} : memref<1x1xf32, 6>
      memref.store %cst, %alloca[%c0, %c0] : memref<1x1xf32, 6>
      scf.for %arg4 = %c0 to %c64 step %c1 {
        %c8_2 = arith.constant 8 : index
        %10 = arith.muli %block_id_y, %c8_2 overflow<nsw> : index
        %11 = arith.addi %thread_id_y, %10 : index
        %12 = memref.load %arg0[%11, %arg4] : memref<64x64xf32>
        %c8_3 = arith.constant 8 : index
        %13 = arith.muli %block_id_x, %c8_3 overflow<nsw> : index
        %14 = arith.addi %thread_id_x, %13 : index
        %15 = memref.load %arg1[%arg4, %14] : memref<64x64xf32>
        %16 = memref.load %alloca[%c0, %c0] : memref<1x1xf32, 6>
        %17 = arith.mulf %12, %15 : f32
        %18 = arith.addf %16, %17 : f32
        memref.store %18, %alloca[%c0, %c0] : memref<1x1xf32, 6>
      }
      %0 = memref.load %alloca[%c0, %c0] : memref<1x1xf32, 6>
      %c8 = arith.constant 8 : index
      %1 = arith.muli %block_id_x, %c8 overflow<nsw> : index
      %2 = arith.addi %thread_id_x, %1 : index
      %3 = memref.load %arg2[%2] : memref<64xf32>
      %4 = arith.addf %0, %3 : f32
      %5 = arith.maximumf %4, %cst : f32
      %c8_0 = arith.constant 8 : index
      %6 = arith.muli %block_id_y, %c8_0 overflow<nsw> : index
      %7 = arith.addi %thread_id_y, %6 : index
      %c8_1 = arith.constant 8 : index
      %8 = arith.muli %block_id_x, %c8_1 overflow<nsw> : index
      %9 = arith.addi %thread_id_x, %8 : index
      memref.store %5, %arg3[%7, %9] : memref<64x64xf32>
      gpu.return
    }
  }
}
